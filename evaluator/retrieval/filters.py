"""Metadata filters (§24): `filter = { path = "policies/**", lang = "de" }` on a candidate.

A filter names the documents a retriever may return: `path` globs over the document id
(the corpus's own bounded glob rule, labeler.core.corpus.files) and front-matter fields
(evaluator.retrieval.front_matter); a key's values are alternatives, keys all must hold.
It is resolved against the corpus once, to a set of document ids, which every retriever
is told per query (`QueryInput.docs`): the exact, lexical and hybrid scorers and Chroma
(`where` on the chunk's `doc`) search only those; ranked and http items outside are
dropped and counted; http is sent the filter too. Evidence outside the filter is missed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from evaluator.retrieval.base import QueryInput, Ranked, Retriever
from evaluator.retrieval.front_matter import front_matter
from labeler.core.errors import ConfigError

MAX_VALUES = 100
"""Most alternatives one key may list."""
MAX_GLOB = 256
"""Longest `path` glob."""
MAX_STARS = 4
"""Most `**` in one glob (each is a `.*` the matcher may try at every place)."""
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}\Z")


@dataclass(frozen=True)
class DocFilter:
    """The declared filter: globs on the path and values of front-matter fields."""

    paths: tuple[str, ...] = ()
    """Globs over the document id; any may match (none: any path)."""
    fields: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(field, accepted values as text); every field must hold one of its values."""

    def record(self) -> dict[str, list[str]]:
        """As run.json, `diff` and an http request carry it."""
        return ({"path": list(self.paths)} if self.paths else {}) | {
            name: list(values) for name, values in self.fields
        }

    def allows(self, doc: str, meta: Mapping[str, tuple[str, ...]]) -> bool:
        from labeler.core.corpus.files import FileRule

        if self.paths and not FileRule(self.paths).is_document(doc):
            return False
        return all(set(values) & set(meta.get(name, ())) for name, values in self.fields)


def parse_filter(raw: Any, label: str, key: str = "filter") -> DocFilter:
    """A `filter` table, checked; every refusal names `key` or `key.FIELD`."""
    if not isinstance(raw, Mapping) or not raw:
        raise ConfigError(f"{label}: {key} must be a table of path and fields", key=key)
    paths: tuple[str, ...] = ()
    fields: list[tuple[str, tuple[str, ...]]] = []
    for name, value in raw.items():
        where = f"{key}.{name}"
        if name == "path":
            paths = tuple(_glob(v, label, where) for v in _values(value, label, where))
        elif not isinstance(name, str) or not _FIELD.match(name):
            message = f"{label}: {key} field {str(name)[:64]!r} is not a field name"
            raise ConfigError(message, key=where)
        else:
            fields.append((name, tuple(_text(v) for v in _values(value, label, where))))
    return DocFilter(paths, tuple(sorted(fields)))


def _values(value: Any, label: str, where: str) -> list[Any]:
    values = value if isinstance(value, list) else [value]
    if not 1 <= len(values) <= MAX_VALUES:
        message = f"{label}: {where} must hold 1 to {MAX_VALUES} values, not {len(values)}"
        raise ConfigError(message, key=where)
    for v in values:
        if not isinstance(v, str | int) or (isinstance(v, str) and not v.strip()):
            message = f"{label}: {where} takes text, whole numbers or true/false, got {v!r}"
            raise ConfigError(message[:200], key=where)
    return values


def _text(value: str | int) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _glob(value: Any, label: str, where: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_GLOB or "\0" in value:
        message = f"{label}: {where} must be a glob of 1 to {MAX_GLOB} characters"
        raise ConfigError(message, key=where)
    if value.count("**") > MAX_STARS or value.startswith("/") or ".." in value.split("/"):
        message = f"{label}: {where} {value[:80]!r} is not a glob over document ids (at most "
        raise ConfigError(message + f"{MAX_STARS} '**', relative, no '..')", key=where)
    return value


def allowed_docs(f: DocFilter, texts: Mapping[str, str], label: str, key: str) -> frozenset[str]:
    """The documents `f` lets through; a field no document has, or a filter that lets
    nothing through, is refused naming `key` (a typo would otherwise empty every list)."""
    metas = {doc: front_matter(doc, texts[doc]) for doc in texts}
    for name, _ in f.fields:
        if not any(name in m for m in metas.values()):
            message = f"{label}: no document has the front-matter field {name!r}"
            raise ConfigError(message, key=f"{key}.{name}")
    docs = frozenset(doc for doc, meta in metas.items() if f.allows(doc, meta))
    if not docs:
        raise ConfigError(f"{label}: {key} lets no document of the corpus through", key=key)
    return docs


@dataclass
class Filtered:
    """A retriever told the filters: each query carries the documents it may retrieve from
    (its own filter's and the candidate's) and the filters as declared; an item outside them
    that comes back anyway (a ranked file's, a search service's that ignored the filter) is
    dropped and counted."""

    inner: Retriever
    """The candidate's retriever."""
    docs: frozenset[str] | None
    """The documents the candidate's filter lets through (None: no candidate filter)."""
    declared: Mapping[str, list[str]] | None
    """The candidate's filter as declared."""
    dropped: int = field(default=0)
    """Items dropped for lying outside the filters, over every search."""

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        told = [self._told(q) for q in queries]
        out = []
        for q, ranked in zip(told, self.inner.search(told, depth), strict=True):
            kept = [r for r in ranked if q.docs is None or r.chunk.doc in q.docs]
            self.dropped += len(ranked) - len(kept)
            out.append(kept)
        return out

    def _told(self, q: QueryInput) -> QueryInput:
        if self.docs is None or self.declared is None:
            return q
        docs = self.docs if q.docs is None else q.docs & self.docs
        return replace(q, docs=docs, filter=(*q.filter, self.declared))

    def record(self) -> dict[str, Any]:
        """For run.json's `index`: the candidate's filter, how many documents it lets
        through, and the items dropped for lying outside the filters."""
        own = {} if self.declared is None or self.docs is None else {
            "filter": dict(self.declared), "filter_documents": len(self.docs)}  # fmt: skip
        return own | {"filter_dropped": self.dropped}


def query_scope(
    declared: tuple[tuple[str, tuple[str, ...]], ...], qid: str, texts: Mapping[str, str]
) -> tuple[frozenset[str], dict[str, list[str]]]:
    """A query's own filter from its label (§24): the documents it lets through, and the
    filter as declared; a refusal names the query and the key."""
    label = f"query {qid}"
    found = parse_filter({k: list(v) for k, v in declared}, label)
    return allowed_docs(found, texts, label, "filter"), found.record()

"""Reading a frozen label set: every check (schema, offsets, quotes, corpus hash, the set's
own hash) runs and builds plain values before anything is written, so a bad file changes
nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from labeler.core.anchoring.binding import diff_documents
from labeler.core.corpus.canonical import NORMALIZATION
from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown
from labeler.core.errors import LabelError, SpanlabError
from labeler.core.files.reading import read_bounded
from labeler.core.labels.labelset_json import (
    FORMAT,
    FORMAT_FACTS,
    FORMATS,
    LabelSet,
    hash_queries,
)
from labeler.core.progress import TaskFactory, each, no_task
from labeler.core.typed import MAX_LABEL_FILE, Refusal, json_tree, need, typed
from labeler.core.values import Query, Span, group_problem, parse_boundary, parse_status


@dataclass(frozen=True)
class _Key:
    """A key path in a label set (`queries[3].evidence[0].start`), as `typed` refuses it."""

    path: str
    """The whole path."""
    name: str = ""
    """Its last key, which the message names."""

    def at(self, key: str) -> _Key:
        sep = "" if key.startswith("[") or not self.path else "."
        return _Key(f"{self.path}{sep}{key}", key)

    def refuse(self, refusal: Refusal) -> LabelError:
        named = refusal.reason == "wrong type" and self.name
        message = f"{self.name!r} {refusal.message}" if named else refusal.message
        return LabelError(message, key=self.path or None)


def _group(raw: dict[str, Any], path: str, fmt: str) -> int | None:
    """The item's group (§18): a positive integer, and only in a `/2` file."""
    if "group" not in raw:
        return None
    group = raw["group"]
    if fmt == FORMAT:
        raise LabelError(f"'group' needs format {FORMATS[1]!r}, the file says {fmt!r}",
                         key=f"{path}.group")  # fmt: skip
    if (problem := group_problem(group)) is not None:
        raise LabelError(f"group {problem}", key=f"{path}.group")
    return int(group)


def _parse_span(raw: Any, corpus: Corpus, path: str, fmt: str = FORMATS[1]) -> Span:
    if not isinstance(raw, dict):
        raise LabelError("evidence must be an object", key=path)
    at = _Key(path)
    group = _group(raw, path, fmt)
    doc = need(raw, "doc", str, at)
    start = need(raw, "start", int, at)
    end = need(raw, "end", int, at)
    quote = need(raw, "quote", str, at)
    if doc not in corpus:
        raise LabelError(f"document {doc!r} is not in the corpus", key=f"{path}.doc")
    text = corpus.text(doc)
    if not (0 <= start < end <= len(text)):
        raise LabelError(
            f"offsets {start}..{end} are out of range for {doc} (length {len(text)})",
            key=f"{path}.start", offset=start,
        )  # fmt: skip
    try:
        span = Span.from_text(text, doc, start, end)
    except LabelError as exc:  # an edge inside a grapheme cluster
        exc.key = f"{path}.{exc.key}"
        raise
    if span.quote != quote:
        raise LabelError(
            f"quote does not match {doc} at {start}..{end}: file has {quote[:40]!r}, "
            f"text has {span.quote[:40]!r}",
            key=f"{path}.quote", offset=start,
        )  # fmt: skip
    return span if group is None else replace(span, group=group)


def _filter(raw: dict[str, Any], path: str, fmt: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A query's own `filter` (§24): an object of keys, each a text or a list of texts (a
    number or true/false is read as its text); only in a `/3` set."""
    if "filter" not in raw:
        return ()
    if fmt not in FORMATS[2:]:
        raise LabelError(f"'filter' needs format {FORMATS[2]!r}, the file says {fmt!r}",
                         key=f"{path}.filter")  # fmt: skip
    found = raw["filter"]
    if not isinstance(found, dict) or not found:
        raise LabelError("filter must be a non-empty object", key=f"{path}.filter")
    out = []
    for key, value in found.items():
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(v, str | int) and not isinstance(v, float) for v in values):
            raise LabelError(f"filter.{key} takes texts, whole numbers or true/false",
                             key=f"{path}.filter.{key}")  # fmt: skip
        out.append((key, tuple(str(v).lower() if isinstance(v, bool) else str(v) for v in values)))
    return tuple(sorted(out))


def _facts(raw: dict[str, Any], path: str, fmt: str) -> tuple[tuple[str, ...], ...]:
    """A query's `facts` (§23): a list of facts, each a list of phrasings (the first the
    preferred one); only in a `/4` set. The value's own rule (`labeler.core.facts`) checks
    the rest: lengths, control characters, duplicates, none on an abstention."""
    if "facts" not in raw:
        return ()
    said = f"query {shown(str(raw.get('id', '?'))[:64], lines=False)}"
    if fmt != FORMAT_FACTS:
        raise LabelError(f"{said}: 'facts' needs format {FORMAT_FACTS!r}, the file says "
                         f"{fmt!r}", key=f"{path}.facts")  # fmt: skip
    found = raw["facts"]
    if not isinstance(found, list) or not found:  # none: the key is left out, as written
        raise LabelError(f"{said}: facts must be a non-empty list of facts, each a list of "
                         "phrasings", key=f"{path}.facts")  # fmt: skip
    for i, fact in enumerate(found):
        if not isinstance(fact, list):
            raise LabelError(f"{said}: a fact must be a list of phrasings",
                             key=f"{path}.facts[{i}]")  # fmt: skip
        for j, phrase in enumerate(fact):
            if not isinstance(phrase, str):
                kind = type(phrase).__name__
                raise LabelError(f"{said}: a phrasing must be a text, got {kind}",
                                 key=f"{path}.facts[{i}][{j}]")  # fmt: skip
    return tuple(tuple(f) for f in found)


def parse_query(raw: Any, corpus: Corpus, path: str, fmt: str = FORMATS[1]) -> Query:
    if not isinstance(raw, dict):
        raise LabelError("a query must be an object", key=path)
    at = _Key(path)
    evidence = need(raw, "evidence", list, at)
    spans = tuple(
        _parse_span(e, corpus, f"{path}.evidence[{i}]", fmt) for i, e in enumerate(evidence)
    )
    slices = need(raw, "slices", list, at)
    if not all(isinstance(s, str) for s in slices):
        raise LabelError("slices must be strings", key=f"{path}.slices")
    try:
        return Query(
            id=need(raw, "id", str, at),
            text=need(raw, "text", str, at),
            abstain=need(raw, "abstain", bool, at),
            boundary=parse_boundary(need(raw, "boundary", str, at), key=f"{path}.boundary"),
            slices=tuple(slices),
            notes=typed(raw.get("notes", ""), str, at.at("notes")),
            status=parse_status(need(raw, "status", str, at), key=f"{path}.status"),
            evidence=spans,
            filter=_filter(raw, path, fmt),
            facts=_facts(raw, path, fmt),
        )
    except LabelError as exc:
        if exc.key and not exc.key.startswith(path):
            exc.key = f"{path}.{exc.key}"
        raise


def parse(data: Any, corpus: Corpus, progress: TaskFactory = no_task) -> LabelSet:
    """Validate a decoded label set against the corpus as it is now; `progress` is told
    each query checked."""
    if not isinstance(data, dict):
        raise LabelError("a label set must be a JSON object")
    top = _Key("")
    fmt = need(data, "format", str, top)
    if fmt not in FORMATS:
        expected = " or ".join(repr(f) for f in FORMATS)
        raise LabelError(f"unknown format {fmt!r} (expected {expected})", key="format")
    meta = need(data, "corpus", dict, top)
    chash = need(meta, "hash", str, top.at("corpus"))
    docs = need(meta, "documents", dict, top.at("corpus"))
    if meta.get("normalization", NORMALIZATION) != NORMALIZATION:
        raise LabelError(
            f"labels use normalization {meta.get('normalization')!r}, this spanlab uses "
            f"{NORMALIZATION!r}",
            key="corpus.normalization",
        )
    if chash != corpus.hash:
        change = diff_documents({str(k): str(v) for k, v in docs.items()}, corpus.doc_hashes)
        if not set(docs) & set(corpus.documents):
            raise LabelError(
                f"these labels are for another corpus: none of their {len(docs)} documents "
                f"is in the corpus folder ({chash} vs {corpus.hash})",
                key="corpus.hash",
                hint="point --corpus (or spanlab.toml) at the corpus the labels were made on",
            )
        details = (
            [f"changed: {d}" for d in change.changed]
            + [f"only in the corpus folder: {d}" for d in change.added]
            + [f"missing from the corpus folder: {d}" for d in change.removed]
        )
        more = [f"… and {len(details) - 12} more"] if len(details) > 12 else []
        raise LabelError(
            f"the labels were made on corpus {chash}, the corpus folder is {corpus.hash}",
            key="corpus.hash",
            details=details[:12] + more,
            hint="import into the store bound to the old corpus, then run `spanlab review`",
        )
    raw_queries = need(data, "queries", list, top)
    counted = each(progress, f"checking {len(raw_queries):,} queries", raw_queries)
    queries = tuple(parse_query(q, corpus, f"queries[{i}]", fmt) for i, q in enumerate(counted))
    seen: set[str] = set()
    for i, q in enumerate(queries):
        if q.id in seen:
            raise LabelError(f"duplicate query id {q.id!r}", key=f"queries[{i}].id")
        seen.add(q.id)
    claimed = data.get("label_set_hash")
    actual = hash_queries(raw_queries)
    if claimed is not None and claimed != actual:
        raise LabelError(
            f"label_set_hash is {claimed} but the queries hash to {actual}: "
            "the file was edited after export",
            key="label_set_hash",
        )
    return LabelSet(chash, dict(docs), tuple(sorted(queries, key=lambda q: q.id)), actual)


def load_json(path: Path, progress: TaskFactory = no_task) -> Any:
    """The file's JSON, bounded (`labeler.core.typed`): size, nesting, text, numbers;
    `progress` is told its characters once parsed (C-fast)."""
    try:
        raw = read_bounded(path, MAX_LABEL_FILE, _Key("")).decode("utf-8")
    except OSError as exc:
        raise LabelError(f"cannot read: {exc.strerror}", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise LabelError("not valid UTF-8", file=str(path), offset=exc.start) from None
    try:
        with progress(f"reading {path.name}", len(raw)) as advance:
            tree = json_tree(raw, _Key(""))
            advance(len(raw))
        return tree
    except json.JSONDecodeError as exc:
        raise LabelError(f"not valid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None


def read(path: Path, corpus: Corpus, progress: TaskFactory = no_task) -> LabelSet:
    """Read and validate a frozen label set file; errors name the file; `progress` is told
    how far (issue 45)."""
    try:
        return parse(load_json(path, progress), corpus, progress)
    except SpanlabError as exc:
        exc.file = exc.file or str(path)
        raise

"""The frozen label set, `spanlab.labelset/1` — the file CI gates on (§4).

Parsing validates everything (schema, offsets, quotes, corpus hash, the set's own hash)
and builds plain values before anything is written, so a bad file changes nothing.
"""

from __future__ import annotations

import gc
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labeler.core.anchoring.binding import CorpusStatus, diff_documents, sync
from labeler.core.corpus.canonical import NORMALIZATION
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, SpanlabError, StoreError
from labeler.core.files import sharing
from labeler.core.files.access import refused_write
from labeler.core.files.reading import read_bounded
from labeler.core.labels.replaced import log_replaced
from labeler.core.store import Store, Version, utcnow
from labeler.core.typed import MAX_LABEL_FILE, Refusal, json_tree, need, typed
from labeler.core.values import Query, Span, parse_boundary, parse_status

if TYPE_CHECKING:
    import sqlite_utils

FORMAT = "spanlab.labelset/1"
TOOL_VERSION = "0.1.0"


@dataclass(frozen=True)
class LabelSet:
    corpus_hash: str
    """The corpus the labels were made on."""
    documents: Mapping[str, str]
    """{doc id: doc hash} of that corpus."""
    queries: tuple[Query, ...]
    """Every query, sorted by id."""
    label_set_hash: str
    """sha256 of the canonical JSON of the queries."""


def query_json(q: Query) -> dict[str, Any]:
    return {
        "id": q.id,
        "text": q.text,
        "abstain": q.abstain,
        "boundary": q.boundary.value,
        "slices": list(q.slices),
        "status": q.status.value,
        "notes": q.notes,
        "evidence": [
            {"doc": s.doc, "start": s.start, "end": s.end, "quote": s.quote,
             "prefix": s.prefix, "suffix": s.suffix}
            for s in q.evidence
        ],
    }  # fmt: skip


def hash_queries(queries: Sequence[Mapping[str, Any]]) -> str:
    payload = json.dumps(queries, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def to_json(
    queries: Iterable[Query], corpus: Corpus, *, exported_at: str | None = None
) -> dict[str, Any]:
    """The frozen label set for `queries`, bound to `corpus`."""
    items = [query_json(q) for q in sorted(queries, key=lambda q: q.id)]
    return frame(items, corpus, exported_at=exported_at)


def frame(
    items: list[dict[str, Any]], corpus: Corpus, *, exported_at: str | None = None
) -> dict[str, Any]:
    """Wrap query objects (sorted by id, shaped as `query_json`) in the label-set header."""
    return {
        "format": FORMAT,
        "corpus": {"hash": corpus.hash, "normalization": NORMALIZATION,
                   "documents": corpus.doc_hashes},
        "label_set_hash": hash_queries(items),
        "exported_at": exported_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool_version": TOOL_VERSION,
        "queries": items,
    }  # fmt: skip


def export(store: Store, corpus: Corpus, leave_out: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Export the store's labels but the queries in `leave_out` (blind, §20); refuses while
    any span is stale or orphaned."""
    status = sync(store, corpus)
    if status.waiting:
        raise StoreError(
            f"{status.waiting} span(s) wait for review after the corpus changed; "
            "export refuses while any span is stale or orphaned",
            hint="run `spanlab review` (or `spanlab review --list`)",
        )
    if store.count("versions") or leave_out:  # double annotation: decided or single versions
        decided, waiting = store.decided_queries()
        data = to_json([q for q in decided if q.id not in leave_out], corpus)
        data["waiting_for_adjudication"] = len(waiting)
        return data
    with no_gc():
        queries, spans = store.label_rows()
        evidence: dict[str, list[dict[str, Any]]] = {}
        for qid, doc, start, end, quote, prefix, suffix in spans:
            evidence.setdefault(qid, []).append(
                {"doc": doc, "start": start, "end": end, "quote": quote,
                 "prefix": prefix, "suffix": suffix}
            )  # fmt: skip
        items = [
            {"id": qid, "text": text, "abstain": bool(abstain), "boundary": boundary,
             "slices": json.loads(slices), "status": status, "notes": notes,
             "evidence": evidence.get(qid, [])}
            for qid, text, abstain, boundary, slices, status, notes in queries
        ]  # fmt: skip
        try:
            return frame(items, corpus)
        except UnicodeEncodeError:  # rows are trusted as written; say which one is not
            raise unwritable(items) from None


def unwritable(items: Sequence[Mapping[str, Any]]) -> LabelError:
    """Which exported query holds text no file can hold (a lone surrogate), and where."""
    for item in items:
        for key, value in item.items():
            try:
                json.dumps(value, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                return LabelError(
                    f"query {item['id']}: {key} holds a lone surrogate in the store (written "
                    "before such text was refused); nothing was exported", key=key
                )  # fmt: skip
    return LabelError("the store holds text that cannot be written as UTF-8")


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic GC while building hundreds of thousands of acyclic values.

    Without this, 200,000 spans trigger dozens of full collections that find nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def write_json(data: Mapping[str, Any], out: Path) -> None:
    """Write through a temporary file so a failed write leaves no half file behind."""
    try:
        sharing.write_text(out, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        message, hint = refused_write(out, exc)
        raise LabelError(message, file=str(out), hint=hint) from None


# -- reading ---------------------------------------------------------------------------


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


def _parse_span(raw: Any, corpus: Corpus, path: str) -> Span:
    if not isinstance(raw, dict):
        raise LabelError("evidence must be an object", key=path)
    at = _Key(path)
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
    return span


def parse_query(raw: Any, corpus: Corpus, path: str) -> Query:
    if not isinstance(raw, dict):
        raise LabelError("a query must be an object", key=path)
    at = _Key(path)
    evidence = need(raw, "evidence", list, at)
    spans = tuple(_parse_span(e, corpus, f"{path}.evidence[{i}]") for i, e in enumerate(evidence))
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
        )
    except LabelError as exc:
        if exc.key and not exc.key.startswith(path):
            exc.key = f"{path}.{exc.key}"
        raise


def parse(data: Any, corpus: Corpus) -> LabelSet:
    """Validate a decoded label set against the corpus as it is now."""
    if not isinstance(data, dict):
        raise LabelError("a label set must be a JSON object")
    top = _Key("")
    fmt = need(data, "format", str, top)
    if fmt != FORMAT:
        raise LabelError(f"unknown format {fmt!r} (expected {FORMAT!r})", key="format")
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
    queries = tuple(parse_query(q, corpus, f"queries[{i}]") for i, q in enumerate(raw_queries))
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


def load_json(path: Path) -> Any:
    """The file's JSON, bounded (`labeler.core.typed`): size, nesting, text, numbers."""
    try:
        raw = read_bounded(path, MAX_LABEL_FILE, _Key("")).decode("utf-8")
    except OSError as exc:
        raise LabelError(f"cannot read: {exc.strerror}", file=str(path)) from None
    except UnicodeDecodeError as exc:
        raise LabelError("not valid UTF-8", file=str(path), offset=exc.start) from None
    try:
        return json_tree(raw, _Key(""))
    except json.JSONDecodeError as exc:
        raise LabelError(f"not valid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None


def read(path: Path, corpus: Corpus) -> LabelSet:
    """Read and validate a frozen label set file; errors name the file."""
    try:
        return parse(load_json(path), corpus)
    except SpanlabError as exc:
        exc.file = exc.file or str(path)
        raise


def refuse_while_waiting(status: CorpusStatus) -> None:
    """Imports wait until the store is bound to the corpus as it is now."""
    if status.bound_hash != status.current_hash:
        raise StoreError(
            f"the store is bound to {status.bound_hash} and {status.waiting} span(s) wait for "
            "review; import refuses until they are resolved",
            hint="run `spanlab review`",
        )


def refuse_conflicts(
    store: Store, queries: Sequence[Query], *, replace_existing: bool = False
) -> tuple[dict[str, Query], list[str]]:
    """The stored queries, and the ids given with different labels; raises unless replacing."""
    existing = {q.id: q for q in store.queries()}
    conflicts = [
        q.id for q in queries if q.id in existing and query_json(existing[q.id]) != query_json(q)
    ]
    if conflicts and not replace_existing:
        raise StoreError(
            f"{len(conflicts)} quer(y/ies) already exist with different labels: "
            f"{', '.join(conflicts[:10])}",
            key="id",
            hint="pass --replace to overwrite them",
        )
    return existing, conflicts


def import_queries(
    store: Store,
    queries: Sequence[Query],
    corpus: Corpus,
    *,
    annotator: str,
    replace_existing: bool = False,
    on_disk: Corpus | None = None,
    before_write: Callable[[sqlite_utils.Database], None] | None = None,
    fresh: Set[str] = frozenset(),
    versions: Sequence[tuple[str, Version]] = (),
    removed: list[str] | None = None,
) -> int:
    """Write validated queries in one transaction; conflicting ids refuse unless replacing.

    A replaced query is logged with the spans it loses and whose they were; `removed`, if
    given, collects a line on each (§15).

    Ids in `fresh` were made up by a reader: those queries get ids the store allocates
    inside the write, so concurrent imports never hand out (or replace) one id twice;
    `replace_existing` replaces only what the file names by its own ids. `versions` are
    annotators' versions of those queries (several annotations of one task). An import
    that brings documents passes the corpus as it is `on_disk` (the store must be bound to
    it) and `corpus` with the new documents; `before_write` runs inside the transaction,
    before the queries go in, to publish them and bind the store.
    """
    refuse_while_waiting(sync(store, on_disk or corpus))
    named = [q for q in queries if q.id not in fresh]
    existing, conflicts = refuse_conflicts(store, named, replace_existing=replace_existing)
    texts = {d.id: d.text for d in corpus}
    todo = [_stamped(q, annotator) for q in named if q.id not in existing or q.id in conflicts]
    new = [_stamped(q, annotator) for q in queries if q.id in fresh]
    with store.write() as db:
        # Again under the write lock: another annotator may have created one of these ids.
        stored, now_conflicts = refuse_conflicts(store, todo, replace_existing=replace_existing)
        if set(now_conflicts) - set(conflicts):
            raise StoreError(
                "another writer created "
                f"{', '.join(sorted(set(now_conflicts) - set(conflicts)))} meanwhile; "
                "nothing was imported",
                key="id",
                hint="run the import again",
            )
        _refuse_retired(store, [q.id for q in todo if q.id not in existing])
        if before_write is not None:
            before_write(db)
        given = {q.id: store.allocate_query_id(db) for q in new}
        new = [replace(q, id=given[q.id]) for q in new]
        said = log_replaced(store, db, stored, [q for q in todo if q.id in now_conflicts],
                            annotator=annotator)  # fmt: skip
        store.put_queries([*todo, *new], texts, db=db)
        written = {q.id for q in todo} | set(given)
        mine = [(given.get(qid, qid), v) for qid, v in versions if given.get(qid, qid) in written]
        store.put_versions(mine, texts, db=db)
    if removed is not None:
        removed.extend(said)
    return len(todo) + len(new)


def _stamped(q: Query, annotator: str) -> Query:
    now = utcnow()
    return replace(
        q,
        annotator=q.annotator or annotator,
        created=q.created or now,
        updated=now,
        evidence=tuple(
            replace(s, annotator=s.annotator or annotator, created=s.created or now)
            for s in q.evidence
        ),
    )


def _refuse_retired(store: Store, ids: Sequence[str]) -> None:
    """A deleted query's id stays retired (§3): a file may not bring it back."""
    retired = [qid for qid in ids if store.retired(qid)]
    if retired:
        raise StoreError(
            f"{len(retired)} quer(y/ies) use ids of deleted queries, which stay retired: "
            f"{', '.join(retired[:10])}; nothing was imported",
            key="id",
            hint="give them new ids (or leave the ids out)",
        )

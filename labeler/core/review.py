"""Stale-span review (SPEC §8): what waits, what anchoring proposes, and a person's decisions.

Listing is lazy (no candidates until asked), so a screen over 10,000 stale spans opens at
once. Each decision is one transaction writing a `review_decisions` row plus an event that
keeps the whole old span, so undo restores it exactly. Nothing here moves a span unasked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

import sqlite_utils

from labeler.core import binding
from labeler.core.anchoring import Proposal, propose_many
from labeler.core.canonical import doc_hash
from labeler.core.corpus import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.store import Store, utcnow
from labeler.core.values import Span, SpanState

DecisionKind = Literal["accept", "orphan", "undo"]
EVENT = {"accept": "review-accepted", "orphan": "review-orphaned", "undo": "review-undone"}
"""Event kinds; the event payload keeps the whole span as it was before the decision."""


@dataclass(frozen=True)
class PendingSpan:
    """A span that waits for a person: everything the screen needs, no candidates yet."""

    query_id: str
    """The query the span answers."""
    question: str
    """That query's text, so the reviewer judges the candidate against the question."""
    span: Span
    """The span as stored, drawn on the old text."""
    state: SpanState
    """stale (document edited) or orphaned (document removed)."""
    old_text: str | None
    """The canonical text the span was drawn on (kept by the store)."""
    new_text: str | None
    """The document's text now; None when the document is gone."""

    @property
    def span_id(self) -> int:
        assert self.span.id is not None, "pending spans come from the store"
        return self.span.id


@dataclass(frozen=True)
class Proposed:
    """A pending span with anchoring's candidates (for `review --list`)."""

    pending: PendingSpan
    """The span awaiting review."""
    proposal: Proposal
    """The candidates, best first; orphaned when none reaches the floor."""


@dataclass(frozen=True)
class Decision:
    """One row of `review_decisions`: who decided what, when, on which corpora."""

    id: int
    """Row id; `undo` takes it."""
    kind: DecisionKind
    """accept, orphan or undo."""
    span_id: int
    """The span decided on."""
    query_id: str
    """Its query."""
    doc: str
    """Its document."""
    old_start: int
    """Start in the text the span was drawn on."""
    old_end: int
    """End in that text."""
    old_quote: str
    """The quote as it was drawn."""
    new_start: int | None
    """Start in the new text (None for orphan)."""
    new_end: int | None
    """End in the new text (None for orphan)."""
    old_corpus_hash: str
    """The corpus hash the store was bound to."""
    new_corpus_hash: str
    """The corpus hash of the folder when deciding."""
    annotator: str
    """Who decided."""
    at: str
    """ISO-8601 UTC time of the decision."""


@dataclass(frozen=True)
class Outcome:
    """What a decision did, and where the review stands after it."""

    decision: Decision
    """The row written."""
    span: Span | None
    """The span as stored now; None when it was deleted."""
    waiting: int
    """Spans still waiting for review."""
    rebound: bool
    """True when this decision resolved the last span and the store moved to the new hash."""


@dataclass(frozen=True)
class Summary:
    """How many spans wait, for `corpus status`-like output."""

    stale: int
    """Spans whose document changed under them."""
    orphaned: int
    """Spans whose document is gone."""
    documents: tuple[str, ...]
    """Documents holding waiting spans."""

    @property
    def waiting(self) -> int:
        return self.stale + self.orphaned

    def describe(self) -> str:
        if not self.waiting:
            return "no span waits for review"
        return (
            f"{self.waiting} span(s) wait for review ({self.stale} stale, {self.orphaned} "
            f"orphaned) in {len(self.documents)} document(s): run `spanlab review`"
        )


# -- reading ---------------------------------------------------------------------------


def pending(store: Store, corpus: Corpus) -> list[PendingSpan]:
    """Every stale or orphaned span, by document and offset; candidates are not computed."""
    status = binding.check(store, corpus)
    questions = _questions(store, {c.query_id for c in status.spans})
    old_texts: dict[str, str | None] = {}
    out = []
    for c in status.spans:
        if c.span.doc_hash not in old_texts:
            old_texts[c.span.doc_hash] = store.doc_text(c.span.doc_hash)
        doc = corpus.documents.get(c.span.doc)
        new = None if doc is None else doc.text
        out.append(
            PendingSpan(
                c.query_id, questions[c.query_id], c.span, c.state, old_texts[c.span.doc_hash], new
            )
        )
    return out


def pending_span(store: Store, corpus: Corpus, span_id: int) -> PendingSpan | None:
    """One span as `pending` would list it (after an undo, say); None when it is valid."""
    query_id, span = store.span(span_id)
    doc = corpus.documents.get(span.doc)
    state = span.state_in(None if doc is None else doc.text)
    if state is SpanState.VALID:
        return None
    question = store.query(query_id).text
    new = None if doc is None else doc.text
    return PendingSpan(query_id, question, span, state, store.doc_text(span.doc_hash), new)


def _questions(store: Store, ids: set[str]) -> dict[str, str]:
    rows = store.conn.execute("SELECT id, text FROM queries")
    return {r["id"]: r["text"] for r in rows if r["id"] in ids}


def proposals(store: Store, corpus: Corpus, *, limit: int = 5) -> list[Proposed]:
    """Pending spans with their candidates, each document pair diffed once."""
    items = pending(store, corpus)
    found = propose_many(((p.span, p.old_text, p.new_text) for p in items), limit=limit)
    return [Proposed(p, proposal) for p, proposal in zip(items, found, strict=True)]


def summary(store: Store, corpus: Corpus) -> Summary:
    status = binding.check(store, corpus)
    counts = status.counts
    docs = tuple(sorted({c.span.doc for c in status.spans}))
    return Summary(counts[SpanState.STALE], counts[SpanState.ORPHANED], docs)


def proposed_json(item: Proposed) -> dict[str, Any]:
    """One entry of `review --list --json` (§8)."""
    p, span = item.pending, item.pending.span
    return {
        "query": p.query_id,
        "span": span.id,
        "doc": span.doc,
        "start": span.start,
        "end": span.end,
        "quote": span.quote,
        "state": p.state.value,
        "candidates": [
            {
                "start": c.start,
                "end": c.end,
                "kind": c.kind,
                "score": round(c.score, 4),
                "parts": {k: round(v, 4) for k, v in asdict(c.parts).items()},
            }
            for c in item.proposal.candidates
        ],
        "orphan_proposed": item.proposal.orphaned,
        "reason": item.proposal.reason,
    }


def decisions(store: Store) -> list[Decision]:
    """Every decision ever made, oldest first."""
    rows = store.conn.execute("SELECT * FROM review_decisions ORDER BY id")
    return [_decision_from_row(r) for r in rows]


def decision(store: Store, decision_id: int) -> Decision:
    sql = "SELECT * FROM review_decisions WHERE id = ?"
    row = store.conn.execute(sql, (decision_id,)).fetchone()
    if row is None:
        raise StoreError(f"no review decision {decision_id}", key="decision")
    return _decision_from_row(row)


def _decision_from_row(row: Mapping[str, Any]) -> Decision:
    return Decision(
        id=row["id"],
        kind=row["decision"],
        span_id=row["span_id"],
        query_id=row["query_id"],
        doc=row["old_doc"],
        old_start=row["old_start"],
        old_end=row["old_end"],
        old_quote=row["old_quote"],
        new_start=row["new_start"],
        new_end=row["new_end"],
        old_corpus_hash=row["old_corpus_hash"],
        new_corpus_hash=row["new_corpus_hash"],
        annotator=row["annotator"],
        at=row["at"],
    )


# -- deciding --------------------------------------------------------------------------


def accept(
    store: Store, corpus: Corpus, span_id: int, start: int, end: int, *, annotator: str
) -> Outcome:
    """Move a stale span to `start..end` of its document's new text (a person chose it)."""
    bound = store.corpus_hash
    with store.write() as db:
        query_id, old = store.span(span_id)
        text = _new_text(old, corpus)
        if not 0 <= start < end <= len(text):
            raise LabelError(
                f"offsets {start}..{end} are out of range for {old.doc} (length {len(text)})",
                key="start",
                offset=start,
            )
        new = replace(old.moved(text, start, end), doc_hash=doc_hash(text))
        new.check(text)
        store.keep_text(new.doc_hash, text, db=db)
        db.execute(
            'UPDATE spans SET start = ?, "end" = ?, quote = ?, prefix = ?, suffix = ?, '
            "doc_hash = ? WHERE id = ?",
            [start, end, new.quote, new.prefix, new.suffix, new.doc_hash, span_id],
        )
        row = _record(
            store, db, "accept", query_id, old, (start, end), bound, corpus.hash, annotator
        )
    return _after(store, corpus, row, bound)


def orphan(store: Store, corpus: Corpus, span_id: int, *, annotator: str) -> Outcome:
    """Delete a span that has no place in the new text; the decision keeps all of it."""
    bound = store.corpus_hash
    with store.write() as db:
        query_id, old = store.span(span_id)
        _require_waiting(old, corpus)
        db.execute("DELETE FROM spans WHERE id = ?", [span_id])
        row = _record(store, db, "orphan", query_id, old, None, bound, corpus.hash, annotator)
    return _after(store, corpus, row, bound)


def undo(store: Store, corpus: Corpus, decision_id: int, *, annotator: str) -> Outcome:
    """Put a span back exactly as it was before decision `decision_id`; it waits again."""
    bound = store.corpus_hash
    with store.write() as db:
        undone = decision(store, decision_id)
        old = _undoable(store, undone)
        if undone.kind == "accept":
            db.table("spans").update(undone.span_id, _span_fields(old))
        else:
            store.query(undone.query_id)  # raises when the query was deleted since
            db.table("spans").insert(
                {"id": old.id, "query_id": undone.query_id, **_span_fields(old)}
            )
        _bind_to_old_text(store, corpus, old, db)
        place = None if undone.new_start is None else (undone.new_start, undone.new_end or 0)
        row = _record(store, db, "undo", undone.query_id, old, place, bound, corpus.hash, annotator)
    return _after(store, corpus, row, bound)


def _new_text(span: Span, corpus: Corpus) -> str:
    """The text a stale span can be moved into; refuses valid and orphaned spans."""
    state = _require_waiting(span, corpus)
    if state is SpanState.ORPHANED:
        raise StoreError(
            f"{span.doc} is no longer in the corpus; span {span.id} can only be orphaned",
            key="span",
        )
    return corpus.text(span.doc)


def _require_waiting(span: Span, corpus: Corpus) -> SpanState:
    doc = corpus.documents.get(span.doc)
    state = span.state_in(None if doc is None else doc.text)
    if state is SpanState.VALID:
        raise StoreError(f"span {span.id} is valid in the corpus; nothing to review", key="span")
    return state


def _undoable(store: Store, undone: Decision) -> Span:
    """The span before `undone`, after checking nothing has happened to it since."""
    if undone.kind == "undo":
        raise StoreError(f"decision {undone.id} is itself an undo", key="decision")
    sql = "SELECT max(id) FROM review_decisions WHERE span_id = ?"
    latest = store.conn.execute(sql, (undone.span_id,)).fetchone()[0]
    if latest != undone.id:
        raise StoreError(
            f"span {undone.span_id} has a later decision ({latest}); undo that first",
            key="decision",
        )
    current = _current(store, undone.span_id)
    if undone.kind == "accept" and (
        current is None or (current.start, current.end) != (undone.new_start, undone.new_end)
    ):
        raise StoreError(f"span {undone.span_id} was edited after the decision", key="span")
    if undone.kind == "orphan" and current is not None:
        raise StoreError(f"span id {undone.span_id} is in use again", key="span")
    return _old_span(store, undone)


def _current(store: Store, span_id: int) -> Span | None:
    try:
        return store.span(span_id)[1]
    except StoreError:
        return None


def _old_span(store: Store, undone: Decision) -> Span:
    sql = "SELECT payload FROM events WHERE kind = ? AND json_extract(payload, '$.decision') = ?"
    row = store.conn.execute(sql, (EVENT[undone.kind], undone.id)).fetchone()
    if row is None:
        raise StoreError(f"decision {undone.id} has no recorded span to restore", key="decision")
    return Span(**json.loads(row[0])["span"])


def _bind_to_old_text(store: Store, corpus: Corpus, span: Span, db: sqlite_utils.Database) -> None:
    """After a rebind the document looks unchanged; bind it back so the span waits again."""
    bound = store.bound_documents()
    doc = corpus.documents.get(span.doc)
    if doc is not None and bound.get(span.doc) == doc.hash and span.doc_hash != doc.hash:
        store.bind({**bound, span.doc: span.doc_hash}, db=db)


def _span_fields(span: Span) -> dict[str, Any]:
    fields = asdict(span)
    del fields["id"]
    return fields


def _record(
    store: Store,
    db: sqlite_utils.Database,
    kind: DecisionKind,
    query_id: str,
    old: Span,
    place: tuple[int, int] | None,
    bound: str | None,
    current: str,
    annotator: str,
) -> int:
    """Write the decision row and the event holding the whole old span."""
    now = utcnow()
    table = db.table("review_decisions")
    table.insert(
        {
            "span_id": old.id,
            "query_id": query_id,
            "decision": kind,
            "old_doc": old.doc,
            "old_start": old.start,
            "old_end": old.end,
            "old_quote": old.quote,
            "new_start": None if place is None else place[0],
            "new_end": None if place is None else place[1],
            "old_corpus_hash": bound or "",
            "new_corpus_hash": current,
            "annotator": annotator,
            "at": now,
        }
    )
    row_id = int(table.last_rowid or 0)
    store.log_event(db, EVENT[kind], annotator, query_id, at=now, decision=row_id, span=asdict(old))
    return row_id


def _after(store: Store, corpus: Corpus, row_id: int, bound: str | None) -> Outcome:
    """Rebind once nothing waits (binding.sync does it), and say where things stand."""
    made = decision(store, row_id)
    status = binding.sync(store, corpus)
    span = _current(store, made.span_id) if made.kind != "orphan" else None
    rebound = status.bound_hash == corpus.hash and bound != corpus.hash
    return Outcome(made, span, status.waiting, rebound)

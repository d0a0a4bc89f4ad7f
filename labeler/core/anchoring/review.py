"""Stale-span review (design §8): what waits, what anchoring proposes, and a person's decisions.

Listing is lazy (no candidates until asked), so a screen over 10,000 stale spans opens at
once. Each decision is one transaction writing a `review_decisions` row plus an event that
keeps the whole old span, so undo restores it exactly. Nothing here moves a span unasked.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from labeler.core.anchoring import binding
from labeler.core.anchoring.candidates import Proposal, propose_many
from labeler.core.corpus.canonical import doc_hash
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.store import Decision, Store
from labeler.core.team.visibility import Sight
from labeler.core.values import Span, SpanState, same_quote

if TYPE_CHECKING:
    import sqlite_utils


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


def pending(store: Store, corpus: Corpus, sight: Sight | None = None) -> list[PendingSpan]:
    """Every stale or orphaned span, by document and offset, but those of versions `sight`
    keeps from its member (§20); candidates are not computed."""
    status = binding.check(store, corpus)
    hidden = sight.hidden_spans(store) if sight is not None else frozenset()
    spans = [c for c in status.spans if c.span.id not in hidden]
    questions = store.query_texts({c.query_id for c in spans})
    old_texts: dict[str, str | None] = {}
    out = []
    for c in spans:
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


def proposals(
    store: Store, corpus: Corpus, *, limit: int = 5, sight: Sight | None = None
) -> list[Proposed]:
    """Pending spans with their candidates, each document pair diffed once."""
    items = pending(store, corpus, sight)
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
    return store.decisions()


def decision(store: Store, decision_id: int) -> Decision:
    return store.decision(decision_id)


# -- deciding --------------------------------------------------------------------------


def accept(
    store: Store, corpus: Corpus, span_id: int, start: int, end: int, *, annotator: str
) -> Outcome:
    """Move a stale span to `start..end` of its document's new text (a person chose it)."""
    bound, before = store.corpus_hash, _stamp(store, corpus)
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
        store.relocate_span(span_id, new, db=db)
        row = store.record_decision(
            "accept", query_id, old, (start, end),
            bound=bound, current=before[2], annotator=annotator, db=db,
        )  # fmt: skip
    return _after(store, corpus, row, bound, before)


def accept_alternatives(
    store: Store,
    corpus: Corpus,
    span_id: int,
    places: list[tuple[int, int]],
    *,
    annotator: str,
) -> Outcome:
    """Keep a quote that now occurs several times as alternatives (§18), a person having
    confirmed each place: the span moves to the first, a copy goes to every other, all in
    one group (the span's own, or a new one). Every place must quote what the span quoted;
    undo puts the span back and removes the copies."""
    if len(places) < 2:
        raise LabelError("alternatives need two places or more", key="places")
    bound, before = store.corpus_hash, _stamp(store, corpus)
    with store.write() as db:
        query_id, old = store.span(span_id)
        text = _new_text(old, corpus)
        moved = [_copy_at(old, text, place) for place in places]
        group = old.group or store.free_group(query_id, span_id, db=db)
        store.keep_text(moved[0].doc_hash, text, db=db)
        store.relocate_span(span_id, replace(moved[0], group=group), db=db)
        added = [store.insert_copy(span_id, replace(m, group=group), db=db) for m in moved[1:]]
        row = store.record_decision(
            "accept", query_id, old, places[0], bound=bound, current=before[2],
            annotator=annotator, db=db, added=added,
        )  # fmt: skip
    return _after(store, corpus, row, bound, before)


def copies(item: PendingSpan, proposal: Proposal) -> list[tuple[int, int]]:
    """The candidates that are copies of the span's quote in the new text, by offset: what
    `accept_alternatives` can keep when the quote now occurs several times (§18)."""
    text = item.new_text or ""
    found = {(c.start, c.end) for c in proposal.candidates
             if same_quote(text[c.start : c.end], item.span.quote)}  # fmt: skip
    return sorted(found)


def _copy_at(old: Span, text: str, place: tuple[int, int]) -> Span:
    start, end = place
    if not 0 <= start < end <= len(text):
        raise LabelError(
            f"offsets {start}..{end} are out of range for {old.doc} (length {len(text)})",
            key="start", offset=start,
        )  # fmt: skip
    new = replace(old.moved(text, start, end), doc_hash=doc_hash(text))
    if not same_quote(new.quote, old.quote):
        raise LabelError(
            f"{old.doc} {start}..{end} holds {new.quote[:40]!r}, not the quote "
            f"{old.quote[:40]!r}: only copies of it can be kept as alternatives",
            key="places", offset=start,
        )  # fmt: skip
    return new


def orphan(store: Store, corpus: Corpus, span_id: int, *, annotator: str) -> Outcome:
    """Delete a span that has no place in the new text; the decision keeps all of it."""
    bound, before = store.corpus_hash, _stamp(store, corpus)
    with store.write() as db:
        query_id, old = store.span(span_id)
        _require_waiting(old, corpus)
        store.drop_span(span_id, db=db)
        row = store.record_decision(
            "orphan", query_id, old, None,
            bound=bound, current=before[2], annotator=annotator, db=db,
        )  # fmt: skip
    return _after(store, corpus, row, bound, before)


def undo(store: Store, corpus: Corpus, decision_id: int, *, annotator: str) -> Outcome:
    """Put a span back exactly as it was before decision `decision_id`; it waits again."""
    bound, before = store.corpus_hash, _stamp(store, corpus)
    with store.write() as db:
        undone = decision(store, decision_id)
        old = _undoable(store, undone)
        if undone.kind == "accept":
            store.rewrite_span(undone.span_id, old, db=db)
            for added in store.decision_added(undone):  # copies kept as alternatives
                store.drop_span(added, db=db)
        else:
            store.query(undone.query_id)  # raises when the query was deleted since
            store.reinsert_span(undone.query_id, old, db=db)
        _bind_to_old_text(store, corpus, old, db)
        place = None if undone.new_start is None else (undone.new_start, undone.new_end or 0)
        row = store.record_decision(
            "undo", undone.query_id, old, place,
            bound=bound, current=before[2], annotator=annotator, db=db,
        )  # fmt: skip
    return _after(store, corpus, row, bound, before)


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
    latest = store.latest_decision(undone.span_id)
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
    return store.decided_span(undone)


def _current(store: Store, span_id: int) -> Span | None:
    try:
        return store.span(span_id)[1]
    except StoreError:
        return None


def _bind_to_old_text(store: Store, corpus: Corpus, span: Span, db: sqlite_utils.Database) -> None:
    """After a rebind the document looks unchanged; bind it back so the span waits again."""
    bound = store.bound_documents()
    doc = corpus.documents.get(span.doc)
    if doc is not None and bound.get(span.doc) == doc.hash and span.doc_hash != doc.hash:
        store.bind({**bound, span.doc: span.doc_hash}, db=db)


def _stamp(store: Store, corpus: Corpus) -> binding.Stamp:
    return binding.stamp(store, corpus.hash)


def _after(
    store: Store, corpus: Corpus, row_id: int, bound: str | None, before: binding.Stamp
) -> Outcome:
    """Rebind once nothing waits (binding.sync does it), and say where things stand.

    The waiting count is kept, not recounted: only the decided span's document is read
    again, so a decision costs the same whatever the number of stale spans.
    """
    made = decision(store, row_id)
    span = _current(store, made.span_id) if made.kind != "orphan" else None
    waiting = binding.waiting_after(store, corpus, made.doc, before)
    now = store.corpus_hash
    if not waiting and now != before[2]:
        status = binding.sync(store, corpus)
        waiting, now = status.waiting, status.bound_hash
    return Outcome(made, span, waiting, now == before[2] and bound != before[2])

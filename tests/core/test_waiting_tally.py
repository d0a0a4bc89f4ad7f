"""A decision's waiting count is kept, not recounted (issue 33): it must still equal a full
check after each decision, and after writes the tally did not see (another connection, or
this one outside review), which send it back to the full check."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.anchoring import binding, review
from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Query, Span, Status

LINES = [f"Line {n} says refunds take {n + 2} days." for n in range(6)]
OLD = Corpus.from_texts({f"d{d}.md": "\n".join(LINES) + "\n" for d in range(3)})
NEW = Corpus.from_texts({f"d{d}.md": "Notice.\n" + OLD.text(f"d{d}.md") for d in range(3)})


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """Three documents with two spans each, all stale in NEW (a line was put on top)."""
    s = Store.open(tmp_path / "labels.db")
    s.bind(OLD.doc_hashes)
    queries = []
    for d in range(3):
        text = OLD.text(f"d{d}.md")
        spans = tuple(
            Span.from_text(text, f"d{d}.md", text.index(LINES[n]), text.index(LINES[n]) + 12)
            for n in (1, 4)
        )
        queries.append(Query(f"q-000{d}", f"Q{d}?", status=Status.LABELLED, evidence=spans))
    with s.write() as db:
        s.put_queries(queries, {d.id: d.text for d in OLD}, db=db)
    return s


def accept(store: Store, item: review.PendingSpan) -> review.Outcome:
    start = NEW.text(item.span.doc).index(item.span.quote)
    return review.accept(store, NEW, item.span_id, start, start + 12, annotator="rev")


def test_each_decision_counts_what_a_full_check_counts(store: Store) -> None:
    review.pending(store, NEW)
    counts = []
    for _ in range(6):
        item = review.pending(store, NEW)[-1]
        start = NEW.text(item.span.doc).index(item.span.quote)
        out = review.accept(store, NEW, item.span_id, start, start + 12, annotator="rev")
        counts.append((out.waiting, binding.check(store, NEW).waiting))
    assert counts == [(5, 5), (4, 4), (3, 3), (2, 2), (1, 1), (0, 0)]
    assert out.rebound and store.corpus_hash == NEW.hash


def test_an_undo_counts_its_span_again(store: Store) -> None:
    out = accept(store, review.pending(store, NEW)[0])
    back = review.undo(store, NEW, out.decision.id, annotator="rev")
    assert (out.waiting, back.waiting) == (5, 6)


def test_another_connections_write_is_counted(store: Store, tmp_path: Path) -> None:
    first, *_, last = review.pending(store, NEW)
    other = Store.open(tmp_path / "labels.db")
    review.orphan(other, NEW, last.span_id, annotator="other")
    assert accept(store, first).waiting == 4


def test_this_connections_own_write_outside_review_is_counted(store: Store) -> None:
    first, *_, last = review.pending(store, NEW)
    store.delete_span(last.span_id, annotator="ann")
    assert accept(store, first).waiting == 4


def test_a_check_with_nothing_written_since_is_the_same_answer(
    store: Store, tmp_path: Path
) -> None:
    first = binding.check(store, NEW)
    assert binding.check(store, NEW) is first and first.waiting == 6
    assert binding.check(store, OLD) is not first  # another corpus
    store.delete_span(first.spans[0].span.id or 0, annotator="ann")
    mine = binding.check(store, NEW)
    assert mine.waiting == 5
    other = Store.open(tmp_path / "labels.db")
    other.delete_span(first.spans[1].span.id or 0, annotator="other")
    assert binding.check(store, NEW).waiting == 4

"""The stale-span review keeps a quote that now occurs twice as alternatives (§18), once
the person confirms both places; undo puts the one span back, waiting again."""

from __future__ import annotations

import pytest

from labeler.core.anchoring import review
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.labels import labelset
from labeler.core.store import Store
from labeler.core.values import Query, Span, SpanState, Status

FACT = "Refunds are paid within 14 days."
OLD = Corpus.from_texts({"x.md": f"Intro.\n{FACT}\n"})
NEW = Corpus.from_texts({"x.md": f"Holiday returns.\n{FACT}\n\nIntro again.\n{FACT}\n"})


@pytest.fixture
def store() -> Store:
    s = Store.memory()
    s.bind(OLD.doc_hashes)
    text = OLD.text("x.md")
    start = text.index(FACT)
    span = Span.from_text(text, "x.md", start, start + len(FACT))
    q = Query("q-0001", "When are refunds paid?", status=Status.LABELLED, evidence=(span,))
    labelset.import_queries(s, [q], OLD, annotator="ann")
    return s


def places() -> list[tuple[int, int]]:
    text = NEW.text("x.md")
    first = text.index(FACT)
    second = text.index(FACT, first + 1)
    return [(first, first + len(FACT)), (second, second + len(FACT))]


def test_a_quote_now_twice_is_kept_as_two_alternatives(store: Store) -> None:
    [waiting] = review.pending(store, NEW)
    assert waiting.state is SpanState.STALE
    [found] = review.proposals(store, NEW)
    assert sorted((c.start, c.end) for c in found.proposal.candidates[:2]) == places()
    done = review.accept_alternatives(store, NEW, waiting.span_id, places(), annotator="rev")
    assert (done.waiting, done.rebound) == (0, True)
    evidence = store.query("q-0001").evidence
    assert [(s.start, s.end, s.group) for s in evidence] == [(a, b, 1) for a, b in places()]
    assert all(s.state_in(NEW.text("x.md")) is SpanState.VALID for s in evidence)
    exported = labelset.export(store, NEW)
    assert exported["format"] == "spanlab.labelset/2"


def test_undo_puts_the_one_span_back_and_removes_the_copy(store: Store) -> None:
    [waiting] = review.pending(store, NEW)
    done = review.accept_alternatives(store, NEW, waiting.span_id, places(), annotator="rev")
    review.undo(store, NEW, done.decision.id, annotator="rev")
    [back] = store.query("q-0001").evidence
    assert back == waiting.span
    assert [p.span_id for p in review.pending(store, NEW)] == [waiting.span_id]


def test_a_place_that_is_not_a_copy_is_refused_and_nothing_changes(store: Store) -> None:
    [waiting] = review.pending(store, NEW)
    before = store.query("q-0001")
    with pytest.raises(LabelError) as info:
        review.accept_alternatives(store, NEW, waiting.span_id, [places()[0], (0, 7)],
                                   annotator="rev")  # fmt: skip
    assert info.value.message == (
        "x.md 0..7 holds 'Holiday', not the quote 'Refunds are paid within 14 days.': "
        "only copies of it can be kept as alternatives"
    )
    assert store.query("q-0001") == before
    with pytest.raises(LabelError, match="alternatives need two places or more"):
        review.accept_alternatives(store, NEW, waiting.span_id, places()[:1], annotator="rev")

"""The label screen's bookkeeping, without a terminal."""

from __future__ import annotations

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span
from labeler.tui.label.editor import Editor
from labeler.tui.label.filters import QueryFilter
from labeler.tui.label.state import LabelState
from labeler.tui.widgets.document_view import Role
from tests.tui.conftest import BILLING, GIFTS


def state_of(store: Store, corpus: Corpus) -> LabelState:
    state = LabelState(Editor(store, corpus, "ann"))
    state.reload()
    return state


def test_listing_makes_the_first_shown_query_current(store: Store, corpus: Corpus) -> None:
    state = state_of(store, corpus)
    shown, moved = state.listed()
    assert ([q.id for q in shown], moved, state.current) == (
        ["q-0001", "q-0002", "q-0003"],
        True,
        "q-0001",
    )
    state.filter = QueryFilter.parse("s:labelled")
    assert [q.id for q in state.listed()[0]] == ["q-0001", "q-0002"]  # pinned
    shown, moved = state.listed(pin=False)
    assert ([q.id for q in shown], moved, state.current) == (["q-0002"], True, "q-0002")


def test_an_edit_refreshes_one_query_and_its_marks(store: Store, corpus: Corpus) -> None:
    state = state_of(store, corpus)
    state.current = "q-0001"
    assert [(m.start, m.role) for m in state.marks("billing.md")] == [(60, Role.OTHER)]
    state.editor.add_span("q-0001", "billing.md", 0, 23)
    old, new = state.refresh("q-0001")
    assert (old is not None and old.spans, new is not None and new.spans) == (0, 1)
    marks = sorted((m.start, m.role) for m in state.marks("billing.md"))
    assert marks == [(0, Role.CURRENT), (60, Role.OTHER)]


def test_next_span_wraps_round_documents(store: Store, corpus: Corpus) -> None:
    store.add_span("q-0001", Span.from_text(GIFTS, "gifts.txt", 25, 70), GIFTS, annotator="ann")
    store.add_span("q-0001", Span.from_text(BILLING, "billing.md", 0, 23), BILLING, annotator="ann")
    state = state_of(store, corpus)
    state.current = "q-0001"
    assert state.next_span("billing.md", 0, forward=True) == ("gifts.txt", 25)
    assert state.next_span("gifts.txt", 25, forward=True) == ("billing.md", 0)
    assert state.next_span("billing.md", 0, forward=False) == ("gifts.txt", 25)
    first = state.first_span("gifts.txt")
    assert first is not None and (first.doc, first.start) == ("gifts.txt", 25)


def test_neighbour_after_a_delete() -> None:
    ids = ["q-0001", "q-0002", "q-0003"]
    assert LabelState.neighbour(ids, "q-0002") == "q-0003"
    assert LabelState.neighbour(ids, "q-0003") == "q-0002"
    assert LabelState.neighbour(["q-0001"], "q-0001") is None


def test_legend_names_annotators_in_the_per_annotator_view(store: Store, corpus: Corpus) -> None:
    state = state_of(store, corpus)
    state.current = "q-0002"
    assert state.legend() == ""
    state.by_annotator = True
    assert state.legend() == "A bob · B -"

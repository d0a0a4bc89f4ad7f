"""Light query rows for the label screen: the store's paging and audit-log reads, and the
state that shows a first page, reads the rest in chunks and catches up with others."""

from __future__ import annotations

from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.store import QueryRow, Store
from labeler.core.values import Boundary, Query, Span, Status
from labeler.tui.label.editor import Editor
from labeler.tui.label.filters import QueryFilter, haystack
from labeler.tui.label.state import LabelState
from labeler.tui.widgets.document_view import Role
from tests.tui.conftest import BILLING, GIFTS

Q1 = QueryRow("q-0001", "How long do refunds take?", False, Boundary.OTHER, ("refunds",), "",
              Status.DRAFT, "ann", 0)  # fmt: skip
Q2 = QueryRow("q-0002", "Is shipping free?", False, Boundary.CONTROL, ("shipping",), "",
              Status.LABELLED, "bob", 1)  # fmt: skip
Q3 = QueryRow("q-0003", "Do gift cards earn interest?", True, Boundary.OTHER, (), "",
              Status.DRAFT, "ann", 0)  # fmt: skip


def ids(rows: list[QueryRow]) -> list[str]:
    return [r.id for r in rows]


def test_rows_carry_fields_and_span_counts_without_spans(store: Store) -> None:
    assert store.query_rows() == [Q1, Q2, Q3]
    assert QueryRow.of(store.query("q-0002")) == Q2


def test_rows_page_by_id(store: Store) -> None:
    assert store.query_rows(limit=2) == [Q1, Q2]
    assert store.query_rows(after="q-0001", limit=1) == [Q2]
    assert store.query_rows(after="q-0003") == []
    assert store.query_rows(start="q-0002") == [Q2, Q3]
    assert store.query_rows(start="q-0002", after="q-0002") == [Q3]


def test_audit_log_names_the_queries_touched(store: Store) -> None:
    # The seed logged 3 query-added events and 1 span-added event.
    assert store.last_event_id() == 4
    store.add_span("q-0001", Span.from_text(GIFTS, "gifts.txt", 0, 24), GIFTS, annotator="ann")
    store.update_query("q-0003", annotator="ann", notes="no")
    store.update_query("q-0001", annotator="ann", notes="yes")
    assert store.touched_since(4) == (7, ["q-0001", "q-0003"])
    assert store.touched_since(7) == (7, [])
    assert store.doc_span_counts() == {"billing.md": 1, "gifts.txt": 1}


def state_of(store: Store, corpus: Corpus) -> LabelState:
    return LabelState(Editor(store, corpus, "ann"))


def test_first_page_then_the_rest_in_chunks(store: Store, corpus: Corpus) -> None:
    state = state_of(store, corpus)
    assert state.first_page(size=2) is False
    assert (ids(state.listed()[0]), state.current, state.total) == (["q-0001", "q-0002"],
                                                                    "q-0001", 3)  # fmt: skip
    loader = state.loader(chunk=2)
    assert (loader.step(), loader.step()) == (False, True)
    state.adopt(loader)
    assert (state.complete, ids(state.listed()[0]), state.total) == (True, ["q-0001",
            "q-0002", "q-0003"], 3)  # fmt: skip
    assert state_of(store, corpus).first_page(size=4) is True  # 3 rows: every one read


def test_first_page_starts_at_the_current_query(store: Store, corpus: Corpus) -> None:
    state = state_of(store, corpus)
    state.current = "q-0002"
    state.first_page(size=2)
    assert (ids(state.listed()[0]), state.current) == (["q-0002", "q-0003"], "q-0002")
    state.current = "q-0009"  # gone: the page starts at the first query instead
    state.first_page(size=2)
    assert (ids(state.listed()[0]), state.current) == (["q-0001", "q-0002"], "q-0001")


def test_an_edit_while_rows_are_read_survives_the_swap(store: Store, corpus: Corpus) -> None:
    state = state_of(store, corpus)
    state.first_page(size=2)
    loader = state.loader(chunk=2)
    loader.step()  # q-0001 read with 0 spans
    state.editor.add_span("q-0001", "billing.md", 0, 23)
    labelled = Q1._replace(spans=1, status=Status.LABELLED)  # the first span labels it
    assert state.refresh("q-0001") == (Q1, labelled)
    loader.step()
    state.adopt(loader)
    assert state.queries["q-0001"].spans == 1
    state.current = "q-0001"
    current = state.current_query
    assert current is not None and [s.quote for s in current.evidence] == [BILLING[:23]]


def test_catch_up_reads_only_what_others_touched(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    state = state_of(store, corpus)
    state.reload()
    state.current = "q-0001"
    assert [(m.start, m.role) for m in state.marks("billing.md")] == [(60, Role.OTHER)]
    other = Store.open(tmp_path / "labels.db")
    other.add_query("Who pays return shipping?", annotator="bob")
    other.add_span("q-0002", Span.from_text(BILLING, "billing.md", 0, 23), BILLING,
                   annotator="bob")  # fmt: skip
    state.forget()
    assert state.catch_up() is True
    assert ids(state.listed()[0]) == ["q-0001", "q-0002", "q-0003", "q-0004"]
    assert state.queries["q-0002"].spans == 2
    assert sorted((m.start, m.role) for m in state.marks("billing.md")) == [
        (0, Role.OTHER),
        (60, Role.OTHER),
    ]
    assert state.catch_up() is False  # nothing logged since: the caller reads every row
    with other.write() as db:  # an import logs nothing
        other.put_queries([Query("q-0100", "Imported?")], {}, db=db)
    assert state.catch_up() is False
    state.reload()
    assert state.total == 5
    other.close()


def test_select_agrees_with_matches(store: Store) -> None:
    rows = store.query_rows()
    hay = {r.id: haystack(r) for r in rows}
    expected = {
        "s:draft": ["q-0001", "q-0003"],
        "is:abstain": ["q-0003"],
        "is:answerable": ["q-0001", "q-0002"],
        "by:bob": ["q-0002"],
        "slice:refunds": ["q-0001"],
        "p:control": ["q-0002"],
        "GIFT": ["q-0003"],
        "s:draft refunds": ["q-0001"],
        "q-000 free": ["q-0002"],
    }
    for line, kept in expected.items():
        f = QueryFilter.parse(line)
        assert ids(f.select(rows, hay)) == kept == ids([r for r in rows if f.matches(r)]), line


def test_the_pinned_current_query_keeps_its_place(store: Store, corpus: Corpus) -> None:
    state = state_of(store, corpus)
    state.reload()
    state.current = "q-0002"
    state.filter = QueryFilter.parse("is:abstain")
    assert (ids(state.listed()[0]), state.current) == (["q-0002", "q-0003"], "q-0002")
    assert (ids(state.listed(pin=False)[0]), state.current) == (["q-0003"], "q-0003")

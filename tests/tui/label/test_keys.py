"""Pilot tests: press keys as an annotator would and check what the store holds."""

from __future__ import annotations

import pytest
from textual.widgets import Label

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label.corpus_search import CorpusSearch
from labeler.tui.label.screen import LabelScreen
from labeler.tui.widgets.document_view import DocumentView
from tests.tui.conftest import BILLING, QUIET, record_notes


def spans_of(store: Store, query_id: str) -> list[tuple[str, int, int, str]]:
    return [(s.doc, s.start, s.end, s.annotator) for s in store.query(query_id).evidence]


def screen(app: SpanlabApp) -> LabelScreen:
    assert isinstance(app.screen, LabelScreen)
    return app.screen


async def test_opens_on_the_first_query_and_document(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)):
        s = screen(app)
        assert s.state.current == "q-0001"
        assert s.view.doc_id == "billing.md"
        assert s.query_list.ids == ["q-0001", "q-0002", "q-0003"]


async def test_sentence_snap_then_add(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "s", "a")
        assert spans_of(store, "q-0001") == [("billing.md", 0, 23, "ann")]
        assert store.query("q-0001").evidence[0].quote == "Refunds take five days."
        assert screen(app).view.selection is None


async def test_shift_arrows_word_snap_and_add(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        # Cursor to 9 ("t|ake"), select 9..15 ("ake fi"), snap out to "take five" (8..17).
        await pilot.press("enter", *["right"] * 9, *["shift+right"] * 6)
        assert screen(app).view.selection == (9, 15)
        await pilot.press("w", "a")
        assert spans_of(store, "q-0001") == [("billing.md", 8, 17, "ann")]


async def test_word_jumps_with_ctrl_shift(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "ctrl+shift+right", "ctrl+shift+right", "a")
        assert spans_of(store, "q-0001") == [("billing.md", 0, 12, "ann")]


async def test_edges_move_without_deleting_and_undo_in_one_step(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "s", "a")
        first = store.query("q-0001").evidence[0]
        await pilot.press("]", "]", "{")
        moved = store.query("q-0001").evidence[0]
        assert (moved.id, moved.start, moved.end, moved.quote) == (
            first.id,
            2,
            22,
            "funds take five days",
        )
        await pilot.press("}", "[")
        assert spans_of(store, "q-0001") == [("billing.md", 1, 23, "ann")]
        await pilot.press("ctrl+z")
        assert spans_of(store, "q-0001") == [("billing.md", 0, 23, "ann")]
        await pilot.press("ctrl+y")
        assert spans_of(store, "q-0001") == [("billing.md", 1, 23, "ann")]


async def test_delete_span_and_undo_redo(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "s", "a", "x")
        assert spans_of(store, "q-0001") == []
        await pilot.press("ctrl+z")
        assert spans_of(store, "q-0001") == [("billing.md", 0, 23, "ann")]
        await pilot.press("ctrl+z")
        assert spans_of(store, "q-0001") == []
        await pilot.press("ctrl+y", "ctrl+y")
        assert spans_of(store, "q-0001") == []
        await pilot.press("ctrl+z")
        assert spans_of(store, "q-0001") == [("billing.md", 0, 23, "ann")]


async def test_redraw_span_to_the_selection(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "s", "a")
        await pilot.press("home", "shift+end", "r")
        # The first row ends after "Cards are credited " (a soft wrap) or at the newline.
        evidence = store.query("q-0001").evidence
        assert len(evidence) == 1
        assert evidence[0].start == 0 and evidence[0].end > 23


async def test_abstain_toggles_and_is_refused_with_evidence(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("A")
        assert store.query("q-0001").abstain is True
        await pilot.press("A", "enter", "s", "a", "A")
        assert store.query("q-0001").abstain is False
        assert spans_of(store, "q-0001") == [("billing.md", 0, 23, "ann")]


async def test_status_cycles(store: Store, corpus: Corpus) -> None:
    store.update_query("q-0001", annotator="ann", abstain=True)  # an empty draft stays one
    app = SpanlabApp(store, corpus, annotator="cat", settings=QUIET)  # reviews ann's query
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("S")
        assert store.query("q-0001").status is Status.LABELLED
        await pilot.press("S", "S")
        assert store.query("q-0001").status is Status.DRAFT


async def test_own_query_cannot_be_marked_reviewed(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ann drew q-0001's evidence (creating it alone would not count: §15)."""
    store.add_span("q-0001", Span.from_text(BILLING, "billing.md", 0, 23), BILLING, annotator="ann")
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("S", "S")
        assert store.query("q-0001").status is Status.LABELLED
        assert any("someone else must mark it reviewed" in n for n in notes), notes


async def test_first_span_moves_a_draft_to_labelled_and_undo_takes_both(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        assert store.query("q-0001").status is Status.DRAFT
        await pilot.press("enter", "s", "a")
        assert store.query("q-0001").status is Status.LABELLED
        await pilot.press("ctrl+z")
        q = store.query("q-0001")
        assert (q.status, q.evidence) == (Status.DRAFT, ())


async def test_filter_by_status_and_words(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        s = screen(app)
        await pilot.press("f", *"s:lab")
        assert s.query_list.ids == ["q-0002"]
        assert s.state.current == "q-0002"  # the first query shown becomes the current one
        await pilot.press("enter", "S")  # labelled → reviewed: it stays listed while current
        assert s.query_list.ids == ["q-0002"]
        await pilot.press("f", *["backspace"] * 5, *"gift")
        assert s.query_list.ids == ["q-0003"]
        await pilot.press(*["backspace"] * 4, *"pattern:zzz")
        assert "pattern:zzz matches 0" in str(s.query_one("#list-title", Label).render())


async def test_edit_form_changes_every_field(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e", "end", "ctrl+u", *"How fast are refunds?", "tab", "tab")
        await pilot.press(*", critical", "tab", "tab", "tab", *"see policy", "enter")
        q = store.query("q-0001")
        assert (q.text, q.slices, q.notes) == (
            "How fast are refunds?",
            ("critical", "refunds"),
            "see policy",
        )
        await pilot.press("ctrl+z")
        assert store.query("q-0001").text == "How long do refunds take?"


async def test_new_duplicate_and_delete_with_confirmation(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+n", *"Where is my parcel?", "enter")
        assert store.query("q-0004").text == "Where is my parcel?"
        assert screen(app).state.current == "q-0004"
        await pilot.press("ctrl+d")
        assert store.query("q-0005").text == "Where is my parcel?"
        await pilot.press("D", "n")
        assert store.count("queries") == 5
        await pilot.press("D", "y")
        assert [q.id for q in store.queries()] == ["q-0001", "q-0002", "q-0003", "q-0004"]
        assert screen(app).state.current == "q-0004"  # the neighbour of the deleted last query
        await pilot.press("ctrl+z")
        assert store.count("queries") == 5


async def test_find_then_add_the_match(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash", *"within two", "enter")
        assert screen(app).view.selection == (43, 53)
        await pilot.press("a")
        assert spans_of(store, "q-0001") == [("billing.md", 43, 53, "ann")]


async def test_go_to_offset_and_next_span(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        view = screen(app).view
        await pilot.press("g", *"92", "enter")
        assert view.cursor == 92
        await pilot.press("J", "N")  # q-0002's span starts at 60, before the cursor
        assert screen(app).state.current == "q-0002"
        assert view.cursor == 60


async def test_next_span_moves_across_documents(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "s", "a")
        await pilot.press("o", *"gifts", "enter", "s", "a")
        s = screen(app)
        assert spans_of(store, "q-0001") == [
            ("billing.md", 0, 23, "ann"),
            ("gifts.txt", 0, 24, "ann"),
        ]
        await pilot.press("N")  # the cursor sat after the new span: back to its start
        assert (s.view.doc_id, s.view.cursor) == ("gifts.txt", 0)
        await pilot.press("N")
        assert (s.view.doc_id, s.view.cursor) == ("billing.md", 0)
        await pilot.press("n")
        assert (s.view.doc_id, s.view.cursor) == ("gifts.txt", 0)
        await pilot.press("n")  # past the last span: round to the first
        assert (s.view.doc_id, s.view.cursor) == ("billing.md", 0)


async def test_mouse_drag_selects(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        view = screen(app).view
        await pilot.mouse_down(DocumentView, offset=(0, 0))
        await pilot.hover(DocumentView, offset=(7, 0))
        await pilot.mouse_up(DocumentView, offset=(7, 0))
        assert view.selection == (0, 7)
        await pilot.press("a")
        assert spans_of(store, "q-0001") == [("billing.md", 0, 7, "ann")]


async def test_corpus_search_jumps_to_the_passage(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+f", *"How long do refunds take?", "enter")  # it opens empty
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        view = screen(app).view
        # "How long do refunds take?" → "refunds", "take", "long": the first window wins,
        # and its sentence holding those words is selected (issue 33), not the whole window.
        assert (view.doc_id, view.selection) == ("billing.md", (0, 23))


async def test_the_first_corpus_search_says_it_is_indexing(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from textual.widgets import OptionList, Static

    from labeler.tui.label import screen as label_screen

    built = threading.Event()
    real = label_screen.search_index

    def slow_index(corpus: Corpus) -> CorpusSearch:
        built.wait(10)
        return real(corpus)

    monkeypatch.setattr(label_screen, "search_index", slow_index)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+f", *"refunds", "enter")
        await pilot.pause()
        dialog = pilot.app.screen
        assert dialog.query_one(OptionList).loading
        assert "indexing the corpus" in str(dialog.query_one("#preview", Static).render())
        built.set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert not dialog.query_one(OptionList).loading
        assert dialog.query_one(OptionList).option_count > 0
        await pilot.press("escape", "ctrl+f", *"refunds", "enter")  # built: only searching
        await pilot.pause()
        assert "indexing" not in str(pilot.app.screen.query_one("#preview", Static).render())

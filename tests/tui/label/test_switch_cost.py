"""What a `J`/`K` switch no longer redoes (issue 45: over SSH it took 4–5× a shell echo):
other queries' marks are built once per document and only filtered, the panel lays the
screen out again only when its height changes, the list repaints two rows, and a store of
more than a page settles its rows out of the collector's sight."""

from __future__ import annotations

import gc
from pathlib import Path

from textual.widgets import Static

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Query
from labeler.tui.app import SpanlabApp
from labeler.tui.label.state import PAGE
from labeler.tui.widgets.document_view import Role
from tests.tui.conftest import QUIET
from tests.tui.label.test_query_rows import state_of
from tests.tui.test_app import label_screen


def test_an_edited_query_shows_its_new_span_once_another_is_current(
    store: Store, corpus: Corpus
) -> None:
    """The cached marks of a document follow an edit: the edited query's new span is
    drawn as another's as soon as another query is current (and not before: it is ours)."""
    state = state_of(store, corpus)
    state.reload()
    state.current = "q-0001"
    assert [(m.start, m.role) for m in state.marks("billing.md")] == [(60, Role.OTHER)]
    state.editor.add_span("q-0001", "billing.md", 0, 23)
    state.refresh("q-0001")
    assert sorted((m.start, m.role) for m in state.marks("billing.md")) == [
        (0, Role.CURRENT), (60, Role.OTHER)]  # fmt: skip
    state.current = "q-0002"
    assert sorted((m.start, m.role) for m in state.marks("billing.md")) == [
        (0, Role.OTHER), (60, Role.CURRENT)]  # fmt: skip
    state.editor.add_span("q-0002", "billing.md", 24, 58)
    state.refresh("q-0002")
    state.current = "q-0001"
    assert sorted((m.start, m.role) for m in state.marks("billing.md")) == [
        (0, Role.CURRENT), (24, Role.OTHER), (60, Role.OTHER)]  # fmt: skip


async def test_the_panel_grows_and_shrinks_with_the_question(store: Store, corpus: Corpus) -> None:
    """A panel whose height changes is laid out again: a question wrapped over three rows
    shows whole after `J`, and the next short one gives the rows back."""
    store.update_query("q-0002", annotator="ann", text="Is shipping free " + "and quick " * 12)
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        panel = s.query_one("#query-panel", Static)
        short = panel.size.height
        await pilot.press("J")
        await pilot.pause()
        assert panel.size.height >= short + 2  # the meta line, then the question wrapped
        rows = ["".join(seg.text for seg in strip) for strip in panel.render_lines(
            panel.size.region)]  # fmt: skip
        assert "and quick" in rows[-1] and "q-0002" in rows[0]
        await pilot.press("J")
        await pilot.pause()
        assert panel.size.height == short


async def test_the_list_moves_its_cursor_row_by_row(app: SpanlabApp) -> None:
    """After `J`, `J` the cursor row is the third, drawn in the cursor's style, and the
    rows it left are plain (the list now repaints those two rows only)."""
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        listing = s.query_list
        await pilot.press("J", "J")
        await pilot.pause()
        assert listing.highlighted == 2 and s.state.current == "q-0003"
        cursor = listing.get_component_rich_style("query-list--cursor", partial=True)
        styled = [listing.render_line(y) for y in range(3)]
        assert [any(seg.style == cursor or (seg.style and seg.style.bgcolor == cursor.bgcolor)
                    for seg in strip) for strip in styled] == [False, False, True]  # fmt: skip


async def test_a_big_store_settles_its_rows_once_read(tmp_path: Path, corpus: Corpus) -> None:
    """Past a page of queries, the rows read are frozen out of the collector (a full
    collection walked 100,000 of them in 0.2 s, a key's wait); a page or less is not."""
    big = Store.open(tmp_path / "big.db")
    big.bind(corpus.doc_hashes)
    with big.write() as db:
        big.put_queries([Query(f"q-{n:04d}", f"question {n}") for n in range(1, PAGE + 6)],
                        {}, db=db)  # fmt: skip
    gc.unfreeze()
    try:
        app = SpanlabApp(big, corpus, annotator="ann", settings=QUIET)
        async with app.run_test(size=(80, 24)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert label_screen(app).state.complete and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        big.close()

"""A document opened again is not wrapped again (issue 33: a 2 MB document took seconds on
every open), an edited one is; and the view holds up when its document is deleted under
it or is one 2 MB line."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from tests.tui.conftest import BILLING, GIFTS, QUIET, record_notes
from tests.tui.test_corpus_watch import folder, settle, watching_app

__all__ = ["folder"]  # the fixture, shared


def label_screen(app: SpanlabApp) -> LabelScreen:
    screen = app.screen
    assert isinstance(screen, LabelScreen)
    return screen


async def test_a_document_opened_again_reuses_its_layout(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = label_screen(app)
        screen.open_document("billing.md")
        first = screen.view.text_layout
        screen.open_document("gifts.txt")
        assert screen.view.text_layout is not first
        screen.open_document("billing.md")
        assert first is not None and screen.view.text_layout is first
        assert screen.view.text_layout.text == BILLING


async def test_an_edit_of_the_open_document_wraps_it_again(folder: Path, tmp_path: Path) -> None:
    app = watching_app(folder, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = label_screen(app)
        screen.open_document("billing.md")
        first = screen.view.text_layout
        edited = BILLING.replace("five days", "ten days")
        (folder / "billing.md").write_text(edited, encoding="utf-8")
        await settle(pilot, app)
        now = screen.view.text_layout
        assert now is not None and now is not first and now.text == edited
        assert screen.view.render_line(0).text.startswith("Refunds take ten days.")


async def test_a_document_deleted_while_open_is_said_and_nothing_breaks(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = watching_app(folder, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("down")  # q-0002, its span in billing.md
        await pilot.pause()
        screen = label_screen(app)
        assert screen.view.doc_id == "billing.md"
        (folder / "billing.md").unlink()
        await settle(pilot, app)
        assert "billing.md was removed from the corpus folder: showing gifts.txt" in notes
        assert (screen.view.doc_id, screen.view.text) == ("gifts.txt", GIFTS)
        await pilot.press("enter", "s", "a", "down", "up")  # nothing is filed on gone text
        await settle(pilot, app)
        assert app.screen is screen
        assert "1 span(s) wait for review after the corpus changed" in notes
        assert app.editor.store.query("q-0002").evidence[0].doc == "billing.md"


async def test_a_2mb_single_line_document_opens_and_moves(tmp_path: Path) -> None:
    line = ("word " * 400_000).strip()
    corpus = Corpus.from_texts({"one-line.txt": line + "\n"})
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    store.add_query("Where is the word?", annotator="ann")
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = label_screen(app)
        screen.open_document("one-line.txt")
        view = screen.view
        layout = view.text_layout
        assert layout is not None and layout.rows > len(line) // layout.width  # soft-wrapped
        assert layout.row_span(1) == (layout.width - layout.width % 5, 2 * (layout.width // 5) * 5)
        await pilot.press("enter", "ctrl+end", "shift+left", "s")
        await pilot.pause()
        assert view.cursor == len(line) and view.selection is not None
        rows = range(view.scrollable_content_region.height)
        assert [view.render_line(y).text.strip()[-4:] for y in rows][-2:] == ["word", ""]

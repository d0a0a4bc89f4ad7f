"""The cursor bar names where the cursor is in an extracted document's source (§22): the
page of a PDF, the end of an HTML element's path; a text document shows no place."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label.panels import BAR_CELLS, cursor_line
from labeler.tui.label.screen import LabelScreen
from tests.core.sources.makers import HELP_HTML, handbook_pdf
from tests.tui.conftest import QUIET


def test_the_place_follows_the_offset_and_a_long_path_keeps_its_end() -> None:
    assert cursor_line("handbook.pdf", 80, 315, None, source="page 1") == (
        "handbook.pdf @80/315 · page 1"
    )
    line = cursor_line("help.html", 40, 205, None, source="html/body/main/table/tr[2]/td[2]")
    assert line == "help.html @40/205 · …/main/table/tr[2]/td[2]"
    assert cell_len(line) <= BAR_CELLS
    assert cursor_line("a.md", 1, 9, None, source="p\x1b[31m") == "a.md @1/9 · p\\x1b[31m"


async def test_the_label_screen_shows_the_page_of_the_cursor(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "handbook.pdf").write_bytes(handbook_pdf())
    (root / "help.html").write_text(HELP_HTML, encoding="utf-8")
    corpus = Corpus.read(root)
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    store.add_query("Is shipping free?", annotator="ann")
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    text = corpus.text("handbook.pdf")
    async with app.run_test(size=(100, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        screen.open_document("handbook.pdf")
        screen.view.go_to(text.index("Basic"))
        await pilot.pause()
        bar = str(screen.query_one("CursorBar").render())
        assert bar.startswith(f"handbook.pdf @{text.index('Basic')}/335 · page 2"), bar
        screen.open_document("help.html")
        screen.view.go_to(corpus.text("help.html").index("Amex"))
        await pilot.pause()
        bar = str(screen.query_one("CursorBar").render())
        assert bar.endswith(" · …ody/main/ul/li/ul/li[2]"), bar
    store.close()

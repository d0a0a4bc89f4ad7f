"""What a new annotator tripped on (issue 15), each pinned by a Pilot test: the messages,
the help at 80 columns, the palette, typed text (NFC, ZWJ) and find on whole graphemes."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.table import Table
from textual import events
from textual.keys import _character_to_key
from textual.widgets import Input, Static

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label.screen import LabelScreen
from labeler.tui.screens.help import KEY_CELLS, HelpScreen
from tests.tui.conftest import QUIET, record_notes

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
"""man ZWJ woman ZWJ girl."""


async def test_undo_and_redo_with_nothing_to_do_say_so_in_plain_words(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = record_notes(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+z", "ctrl+y")
        await pilot.press("enter", "s", "a", "ctrl+z")
    assert notes == ["Nothing to undo.", "Nothing to redo.", "Undone: add span to q-0001"]


async def test_a_filter_that_hides_every_query_says_so(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f", *"zebra")
        await pilot.pause()
        panel = str(app.screen.query_one("#query-panel", Static).content)
        assert panel == "No query matches the filter (3 hidden). Press f to change it."


async def test_every_key_cell_of_the_help_fits_its_column_at_80(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        table = help_screen.query(Static).last().content
        assert isinstance(table, Table)
        keys, does = (list(c.cells) for c in table.columns)
        cells = [str(k) for k in keys if "[reverse]" not in str(k)]
        assert max(len(c) for c in cells) <= KEY_CELLS
        assert any("ctrl+home/end" in str(d) for d in does)  # the moves, whole


async def test_the_palette_has_each_labelling_action_once(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
    assert len(titles) == len(set(titles))
    wanted = {"Add span", "Delete span", "Edit query", "Status", "Abstain", "Filter queries",
              "Go to offset", "Find in document", "Keys"}  # fmt: skip
    assert wanted <= set(titles)


async def test_palette_add_span_adds_the_selection(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "s")
        (add,) = (c for c in app.get_system_commands(app.screen) if c.title == "Add span")
        add.callback()
        await pilot.pause()
    assert [s.quote for s in store.query("q-0001").evidence] == ["Refunds take five days."]


async def test_typed_text_is_stored_nfc_with_zwj_sequences_whole(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        field = app.screen.query_one("#text", Input)
        field.value = ""
        for char in f"Cafe\u0301 {FAMILY}":  # as a terminal sends them: one key each
            app.post_message(events.Key(_character_to_key(char), char))
            await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
    assert store.query("q-0001").text == f"Caf\u00e9 {FAMILY}"


@pytest.fixture
def marks_app(tmp_path: Path) -> SpanlabApp:
    text = "See (q\u0307) and (q) here.\n"
    corpus = Corpus.from_texts({"marks.md": text})
    store = Store.open(tmp_path / "marks.db")
    store.bind(corpus.doc_hashes)
    store.add_query("Which q?", annotator="ann")
    return SpanlabApp(store, corpus, annotator="ann", settings=QUIET)


async def test_find_selects_whole_grapheme_clusters(marks_app: SpanlabApp) -> None:
    """`(q` is not found inside `(q̇` (q with a dot above is another character): find goes
    on to the real `(q`, so the span never ends between a letter and its mark (§13)."""
    async with marks_app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash", *"(q", "enter", "a")
        await pilot.pause()
        screen = marks_app.screen
        assert isinstance(screen, LabelScreen)
        assert screen.editor.store is not None
        (span,) = screen.editor.store.query("q-0001").evidence
    assert (span.start, span.end, span.quote) == (13, 15, "(q")


async def test_corpus_search_opens_empty_and_typing_does_not_append(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+f")
        await pilot.pause()
        field = app.screen.query_one("#words", Input)
        assert field.value == ""
        await pilot.press(*"label")
        assert field.value == "label"


@pytest.mark.parametrize(("size", "width"), [((80, 24), 32), ((100, 30), 40), ((200, 40), 60)])
async def test_the_query_list_widens_with_the_terminal(
    app: SpanlabApp, size: tuple[int, int], width: int
) -> None:
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert abs(app.screen.query_one("#queries-pane").outer_size.width - width) <= 1

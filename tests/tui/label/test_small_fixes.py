"""The smaller items of issue 45 (item 6): `r` extends a span; one `^z` undoes a redraw apart
from the nudges after it; after a query change `a` says why nothing is selected; in `^f`, ↓
does not enter an empty result list and letters typed in the results go on in the words;
`^d`'s copy is no work done today."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from textual.widgets import OptionList, Static

from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.label.search_screen import NO_RESULTS, SearchScreen
from labeler.tui.settings import Field
from tests.tui.conftest import BILLING, record_notes


def label(app: SpanlabApp) -> LabelScreen:
    assert isinstance(app.screen, LabelScreen)
    return app.screen


def edges(store: Store) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in store.query("q-0002").evidence]


async def on_shipping(app: SpanlabApp, start: int, end: int) -> LabelScreen:
    """q-0002 current, billing.md open, start..end selected, the document focused."""
    screen = label(app)
    screen.show_query("q-0002")
    screen.open_document("billing.md")
    screen.view.select(start, end)
    screen.view.focus()
    return screen


async def test_r_extends_the_span_and_undoes_apart_from_the_nudges(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await on_shipping(app, 55, 70)  # overlaps the start of 60..91
        await pilot.press("r")
        assert edges(store) == [(55, 91)]  # extended, not cut to 55..70
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        assert edges(store) == [(58, 91)]
        await pilot.press("ctrl+z")  # the three nudges, as one step
        assert edges(store) == [(55, 91)]
        await pilot.press("ctrl+z")  # then the redraw
        assert edges(store) == [(60, 91)]


async def test_a_after_a_query_change_says_the_selection_was_dropped(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        screen = label(app)
        screen.view.select(0, 10)
        screen.view.focus()
        await pilot.press("J", "a")
        assert notes[-1] == (
            "The query changed to q-0002: its selection was dropped. Select text first: "
            "shift+arrows, w, s, or drag."
        )
        await pilot.press("a")  # said once per drop: the same key again says it again
        assert notes[-1].startswith("The query changed to q-0002")
        await pilot.press("escape", "a")  # nothing to drop any more: the plain line
        assert notes[-1] == "Select text first: shift+arrows, w, s, or drag."


async def test_down_in_search_stays_in_the_words_until_results_come(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+f", *"refu", "down", *"nds")
        search = app.screen
        assert isinstance(search, SearchScreen)
        field = search.query_one(Field)
        assert field.has_focus and field.value == "refunds"
        assert NO_RESULTS in str(search.query_one("#preview", Static).render())
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert search.hits
        await pilot.press("down", "x")  # into the results, then a letter: back in the words
        assert field.has_focus and field.value == "refundsx"
        assert not search.query_one(OptionList).has_focus


def test_a_duplicate_is_no_work_done_today(store: Store) -> None:
    since = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0).isoformat()
    before = store.progress("cat", since)
    copy = store.copy_query(store.query("q-0002"), {"billing.md": BILLING}, annotator="cat")
    assert store.progress("cat", since)[2:] == before[2:] == (0, None)
    store.update_query(copy.id, annotator="cat", notes="checked")
    assert store.progress("cat", since)[2] == 1

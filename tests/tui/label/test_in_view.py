"""The current row stays in sight (issue 45, item 3): the query list scrolls to the current
query after a restart, after creating one and after a resize; `T` opens again on the row it
was on, or on the one that took its place once that passage was labelled (its marker glyph:
test_transitions_screen)."""

from __future__ import annotations

from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.label.query_list import QueryList
from labeler.tui.label.transitions_screen import TransitionPlace
from tests.tui.conftest import QUIET


def in_view(ql: QueryList) -> bool:
    assert ql.highlighted is not None
    top = round(ql.scroll_y)
    return top <= ql.highlighted < top + ql.scrollable_content_region.height


def label(app: SpanlabApp) -> LabelScreen:
    assert isinstance(app.screen, LabelScreen)
    return app.screen


async def test_the_current_query_stays_in_view(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    for n in range(4, 61):
        store.add_query(f"Question {n}?", annotator="ann")
    prefs = tmp_path / "app.json"
    first = SpanlabApp(store, corpus, annotator="ann", settings=QUIET, prefs=prefs)
    async with first.run_test(size=(80, 24)) as pilot:
        label(first).show_query("q-0045")
        await pilot.pause()
    again = SpanlabApp(store, corpus, annotator="ann", settings=QUIET, prefs=prefs)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ql = label(again).query_list
        assert (label(again).current, ql.highlighted) == ("q-0045", 44)
        assert in_view(ql) and round(ql.scroll_y) > 0
        await pilot.press("home")
        assert ql.highlighted == 0 and round(ql.scroll_y) == 0
        await pilot.press("ctrl+n", *"A new one?", "ctrl+s")
        await pilot.pause()
        assert (label(again).current, ql.highlighted) == ("q-0061", 60)
        assert in_view(ql)
        await pilot.resize_terminal(80, 12)
        await pilot.pause()
        await pilot.pause()
        assert in_view(ql)


def test_a_place_reopens_on_its_row_or_the_one_that_took_it() -> None:
    a, b, c, d = (("g.md", n, "heading-paragraph") for n in (1, 2, 3, 4))
    place = TransitionPlace([a, b, c, d], 1)
    assert place.resume([a, b, c, d]) == 1  # still there
    assert place.resume([a, c, d]) == 1  # b labelled: c took its row
    assert place.resume([d, a]) == 0  # b and c gone: d, now first
    assert place.resume([a]) == 0  # none after it left: the same position, within the list
    assert TransitionPlace().resume([a, b]) == 0

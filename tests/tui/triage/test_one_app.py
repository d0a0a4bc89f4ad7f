"""One app (design §11): label, triage, review and stats are screens a person moves between
with keys and the palette, and each keeps its state while the person is elsewhere."""

from __future__ import annotations

from textual.pilot import Pilot

from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.review import ReviewScreen
from labeler.tui.screens.stats import StatsScreen
from labeler.tui.triage import QueryScreen, TriageScreen
from tests.tui.triage.test_screen import open_query


def label_of(pilot: Pilot[None]) -> LabelScreen:
    screen = pilot.app.screen
    assert isinstance(screen, LabelScreen)
    return screen


async def test_a_lost_query_opens_in_label_and_every_screen_keeps_its_state(
    labelling_app: SpanlabApp,
) -> None:
    async with labelling_app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        query = await open_query(pilot, downs=1)
        await pilot.press("e")
        await pilot.pause()
        label = label_of(pilot)
        assert (label.current, labelling_app.mode_name) == ("q-0001", "label")
        await pilot.press("J")  # the next query, so the label screen has moved on
        assert label.current == "q-0002"
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert pilot.app.screen is query and query.query_id == "q-0001"
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert label_of(pilot) is label and label.current == "q-0002"
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert isinstance(pilot.app.screen, StatsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert label_of(pilot) is label
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ReviewScreen)
        assert pilot.app.title == "spanlab review"


async def test_the_query_screen_under_label_is_still_there_after_escape(
    labelling_app: SpanlabApp,
) -> None:
    async with labelling_app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_query(pilot, downs=1)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+g", "escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, TriageScreen)
        await pilot.press("ctrl+g")  # already there: nothing changes
        assert isinstance(pilot.app.screen, TriageScreen)
        assert not isinstance(pilot.app.screen, QueryScreen)


async def test_the_palette_offers_each_other_screen_and_keys_once(
    labelling_app: SpanlabApp,
) -> None:
    async with labelling_app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        titles = [c.title for c in labelling_app.get_system_commands(pilot.app.screen)]
        assert titles.count("Keys") == 1
        assert {"Label", "Review", "Stats"} <= set(titles) and "Triage" not in titles
        (label,) = (c for c in labelling_app.get_system_commands(pilot.app.screen)
                    if c.title == "Label")  # fmt: skip
        label.callback()
        await pilot.pause()
        assert isinstance(pilot.app.screen, LabelScreen)

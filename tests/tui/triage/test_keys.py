"""Pilot tests for the keys a new reviewer reaches for: zoom, `?`, leaving the filter, quit.

Expectations come from the hand-worked run in conftest.py at 80×24: the query screen of
q-0001 has a two-line head, three verdict lines, a legend, ranked lists three rows high
(the candidate's title, its one row and its `— e1` line) and a footer, so the text gets
24 - 10 = 14 rows with the lists and 24 - 4 = 20 without.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from textual.errors import NoWidget
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Static

from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.screens.help import HelpScreen
from labeler.tui.triage import QueryScreen, TriageScreen
from labeler.tui.triage.widgets import CandidateList, ChangeList, RunList
from tests.tui.triage.test_screen import open_query, triage


def footer_hints(screen: Screen[Any]) -> list[str]:
    """The footer's keys and labels that are drawn whole on the bottom row, left to right."""
    footer = screen.query_one(Footer)
    hints = []
    for item in footer.query("FooterKey, FooterLabel"):
        hints += [str(item.render()).strip()] if drawn_whole(screen, item) else []
    return hints


def drawn_whole(screen: Screen[Any], widget: Widget) -> bool:
    """Whether the widget's first and last cells are its own, not off-screen or covered."""
    region = widget.region
    try:
        ends = [screen.get_widget_at(x, region.y)[0] for x in (region.x, region.right - 1)]
    except NoWidget:
        return False
    return region.width > 0 and ends == [widget, widget]


def help_rows(pilot: Pilot[None]) -> list[tuple[str, str]]:
    """The help's rows as (key, what it does); a group title is (" title ", "")."""
    screen = pilot.app.screen
    assert isinstance(screen, HelpScreen)
    table = screen.query(Static).last().content  # the first Static is the title Label
    assert isinstance(table, Table)
    keys, does = (list(column.cells) for column in table.columns)
    return [(str(k).replace("[reverse]", "").replace("[/]", ""), str(d))
            for k, d in zip(keys, does, strict=True)]  # fmt: skip


def shown(screen: QueryScreen, selector: str) -> bool:
    return screen.query_one(selector).display


async def test_z_gives_the_text_the_whole_height_and_z_again_brings_the_lists_back(
    app: SpanlabApp,
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await open_query(pilot, downs=1)
        text = screen.query_one("#q-boundary")
        assert (text.size.height, shown(screen, "#q-fates"), shown(screen, "#q-ranked")) == (
            12, True, True,  # the fates say what would hold the cut span (§17): two rows more
        )  # fmt: skip
        await pilot.press("tab")
        assert not text.has_focus
        await pilot.press("z")
        await pilot.pause()
        assert (text.size.height, shown(screen, "#q-fates"), shown(screen, "#q-ranked")) == (
            20, False, False,
        )  # fmt: skip
        assert text.has_focus
        assert "z Unzoom" in footer_hints(screen) and "z Zoom text" not in footer_hints(screen)
        await pilot.press("z")
        await pilot.pause()
        assert (text.size.height, shown(screen, "#q-fates"), shown(screen, "#q-ranked")) == (
            12, True, True,  # the fates say what would hold the cut span (§17): two rows more
        )  # fmt: skip
        assert "z Zoom text" in footer_hints(screen)


async def test_zoom_stays_on_while_n_walks_to_the_next_query(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = await open_query(pilot, downs=0)
        await pilot.press("z", "n")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert (screen.query_id, screen.zoomed, shown(screen, "#q-ranked")) == (
            "q-0001", True, False,
        )  # fmt: skip


async def test_question_mark_on_the_query_screen_lists_its_keys_first(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_query(pilot, downs=1)
        await pilot.press("question_mark")
        await pilot.pause()
        assert help_rows(pilot) == [
            (" Query screen ", ""),
            ("esc", "Back"),
            ("n", "Next query"),
            ("p", "Previous query"),
            ("e", "Fix label"),
            ("a", "Answer"),
            ("z", "Zoom text"),
            ("z", "Unzoom"),
            (" Triage screen ", ""),
            ("1", "Summary"),
            ("2", "Queries"),
            ("3", "Frontier"),
            ("4", "Runs"),
            ("c", "Candidate"),
            ("C", "Previous candidate"),
            ("/", "Filter"),
            ("esc", "Filter: back to the list (enter too)"),
            ("e", "Fix label"),
            ("a", "Answer"),
            (" Lists ", ""),
            ("⏎", "Open: candidate's queries, query, run"),
            ("↓", "Down"),
            ("end", "Last"),
            ("home", "First"),
            ("pgdn", "Page Down"),
            ("pgup", "Page Up"),
            ("↑", "Up"),
            (" Anywhere ", ""),
            ("^q", "Quit"),
            ("?", "Keys"),
            ("^l", "Label"),
            ("^r", "Review"),
            ("^g", "Triage"),
            ("^o", "Agreement"),
            ("^t", "Stats"),
        ]
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(pilot.app.screen, QueryScreen)


async def test_question_mark_on_the_triage_screen_starts_with_its_keys(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        titles = [key for key, does in help_rows(pilot) if not does]
        assert titles == [" Triage screen ", " Lists ", " Query screen ", " Anywhere "]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, TriageScreen)
        assert triage(pilot).query_one(CandidateList).has_focus


async def test_question_mark_on_the_label_screen_lists_its_keys_then_the_triage_keys(
    labelling_app: SpanlabApp,
) -> None:
    async with labelling_app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_query(pilot, downs=1)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(pilot.app.screen, LabelScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        rows = help_rows(pilot)
        titles = [key for key, does in rows if not does]
        assert titles == [
            " Document ", " Label screen ", " Triage screen ", " Lists ", " Query screen ",
            " Anywhere ",
        ]  # fmt: skip
        assert ("a", "Add span") in rows and ("^g", "Triage") in rows


async def test_escape_leaves_the_filter_with_its_value_and_the_next_key_reaches_the_list(
    app: SpanlabApp,
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        await pilot.press("2", "slash", *"slice:critical", "escape")
        field = screen.query_one("#change-filter", Input)
        assert (field.value, field.has_focus, screen.query_one(ChangeList).has_focus) == (
            "slice:critical", False, True,
        )  # fmt: skip
        # c40 is the only candidate: `c` cycles back to it, and types nothing.
        await pilot.press("c")
        assert (field.value, screen.candidate, [r.query for r in screen.rows]) == (
            "slice:critical", "c40", ["q-0002"],
        )  # fmt: skip


async def test_enter_leaves_the_filter_too_and_slash_comes_back_to_it(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        await pilot.press("slash", *"slice:critical", "enter")
        field = screen.query_one("#change-filter", Input)
        assert (field.has_focus, [r.query for r in screen.rows]) == (False, ["q-0002"])
        await pilot.press("slash", "backspace")
        assert (field.has_focus, field.value) == (True, "slice:critica")


async def test_escape_outside_the_filter_leaves_the_focus_where_it_is(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("4", "escape")
        assert triage(pilot).query_one(RunList).has_focus


async def test_every_triage_screen_shows_quit_in_its_footer(labelling_app: SpanlabApp) -> None:
    async with labelling_app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        summary = ["c Candidate", "/ Filter", "^q Quit", "? Keys", "^p palette"]
        assert footer_hints(pilot.app.screen) == summary
        await pilot.press("2")
        assert footer_hints(pilot.app.screen) == [
            "c Candidate", "/ Filter", "e Fix label", "^q Quit", "? Keys", "^p palette",
        ]  # fmt: skip
        # In the filter, `c`, `e` and `?` are text: their hints go, quit stays.
        await pilot.press("slash")
        assert footer_hints(pilot.app.screen) == ["/ Filter", "^q Quit", "^p palette"]
        await pilot.press("escape", "3")
        assert footer_hints(pilot.app.screen) == summary
        screen = await open_query(pilot, downs=0)
        assert footer_hints(screen) == [
            "esc Back", "n", "p", "Next/prev", "e Fix label", "z Zoom text", "^q Quit", "? Keys",
            "^p palette",
        ]  # fmt: skip
        await pilot.press("z")
        assert footer_hints(screen)[-4:] == ["z Unzoom", "^q Quit", "? Keys", "^p palette"]
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(pilot.app.screen, LabelScreen)
        assert "^q Quit" in footer_hints(pilot.app.screen)

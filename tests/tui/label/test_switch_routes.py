"""Every way to another query draws all of it (issue 45 trial, after the list began telling
its screen directly): `J`/`K`, arrows in the focused list, a click on a row, the filter and
`U` each show the new query in the panel, its spans as the current ones, the cursor bar
on its first span, the list's cursor on its row, and drop a selection made before."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot

from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.label.panels import CursorBar, QueryPanel
from labeler.tui.label.query_list import QueryList
from labeler.tui.widgets.document_view import Role
from tests.tui.test_app import label_screen

Route = Callable[[Pilot[None], LabelScreen], Awaitable[None]]


def drawn(s: LabelScreen) -> tuple[object, ...]:
    """What the screen shows of the current query: the panel's first words, the list's
    row, the spans drawn as current, the cursor bar, the selection."""
    panel = s.query_one(QueryPanel)
    rows = ["".join(seg.text for seg in strip) for strip in panel.render_lines(panel.size.region)]
    current = sorted((m.start, m.end) for m in s.view.marks.marks if m.role is Role.CURRENT)
    bar = str(s.query_one(CursorBar).render())
    return rows[0].split()[0], s.query_list.current_id, current, bar, s.view.selection


async def keys(pilot: Pilot[None], s: LabelScreen, *pressed: str, focus: str = "") -> None:
    if focus:
        s.query_one(f"#{focus}").focus()
    await pilot.press(*pressed)


async def click_row(pilot: Pilot[None], s: LabelScreen, row: int) -> None:
    await pilot.click(QueryList, offset=(4, row))


TO_SECOND: dict[str, Route] = {
    "J": lambda p, s: keys(p, s, "J", focus="document"),
    "down in the list": lambda p, s: keys(p, s, "down", focus="queries"),
    "click in the list": lambda p, s: click_row(p, s, 1),
    "filter": lambda p, s: keys(p, s, "f", *"shipping", "enter"),
}
"""From q-0001 (no span) to q-0002 (billing.md 60–91)."""
TO_FIRST: dict[str, Route] = {
    "K": lambda p, s: keys(p, s, "K", focus="document"),
    "up in the list": lambda p, s: keys(p, s, "up", focus="queries"),
    "click in the list": lambda p, s: click_row(p, s, 0),
    "filter": lambda p, s: keys(p, s, "f", *"refunds", "enter"),
    "U": lambda p, s: keys(p, s, "U"),
}
"""From q-0002 back to q-0001 (no span: the view stays where it was)."""


@pytest.mark.parametrize("route", list(TO_SECOND))
async def test_a_switch_to_a_query_with_evidence_draws_it(app: SpanlabApp, route: str) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        await pilot.pause()
        assert s.current == "q-0001"
        s.view.select(0, 10)
        await TO_SECOND[route](pilot, s)
        await pilot.pause()
        assert drawn(s) == ("q-0002", "q-0002", [(60, 91)], "span 1/1 · billing.md @60/114", None)


@pytest.mark.parametrize("route", list(TO_FIRST))
async def test_a_switch_to_a_query_without_evidence_draws_it(app: SpanlabApp, route: str) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        s.show_query("q-0002")
        await pilot.pause()
        s.view.select(65, 75)
        await TO_FIRST[route](pilot, s)
        await pilot.pause()
        assert drawn(s) == ("q-0001", "q-0001", [], "billing.md @75/114", None)

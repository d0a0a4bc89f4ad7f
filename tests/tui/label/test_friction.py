"""Pilot tests for the annotator's friction points (issue 15): span n of m, trimming,
resume, the pattern and slice keys."""

from __future__ import annotations

from labeler.core.store import Store
from labeler.core.values import Span
from labeler.tui.app import SpanlabApp
from labeler.tui.label.panels import CursorBar
from labeler.tui.label.screen import LabelScreen
from tests.tui.conftest import BILLING


def screen(app: SpanlabApp) -> LabelScreen:
    assert isinstance(app.screen, LabelScreen)
    return app.screen


def bar(app: SpanlabApp) -> str:
    return str(app.screen.query_one(CursorBar).content)


async def test_adjacent_spans_are_told_apart_by_number(app: SpanlabApp, store: Store) -> None:
    for start, end in ((0, 23), (24, 59)):  # two sentences side by side
        store.add_span("q-0001", Span.from_text(BILLING, "billing.md", start, end), BILLING,
                       annotator="ann")  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert "span 1/2" in bar(app)
        await pilot.press("n")
        assert screen(app).view.cursor == 24
        assert "span 2/2" in bar(app)
        screen(app).view.go_to(80)  # the shipping sentence: no span of q-0001
        await pilot.pause()
        assert bar(app).startswith("billing.md @80/") and "span " not in bar(app)


async def test_a_selection_over_a_line_end_is_stored_without_it(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen(app).view.go_to(24)
        await pilot.pause()
        await pilot.press(*["shift+right"] * 37, "a")  # 24..61: "Cards … days.\nS"
        (span,) = store.query("q-0001").evidence
        assert (span.start, span.end) == (24, 61)
        store.delete_span(span.id or 0, annotator="ann")
        screen(app).view.go_to(23)
        await pilot.pause()
        await pilot.press(*["shift+right"] * 38, "a")  # 23..61 less the leading space
        (span,) = store.query("q-0001").evidence
        assert span.start == 24 and not span.quote[0].isspace()

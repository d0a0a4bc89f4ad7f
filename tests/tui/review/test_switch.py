"""The label screen waits until every stale span has been reviewed (§8): from review, the
switch to label is refused while spans wait, and says how many."""

from __future__ import annotations

import pytest

from labeler.tui.app import SpanlabApp
from labeler.tui.review import ReviewScreen
from tests.tui.conftest import record_notes
from tests.tui.review.conftest import Demo
from tests.tui.review.helpers import settle


async def test_label_is_refused_while_spans_wait(
    demo: Demo, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = SpanlabApp(demo.store, demo.new, annotator="pilot", screen="review")
    notes = record_notes(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert notes == ["32 span(s) wait for review first (ctrl+r)"]

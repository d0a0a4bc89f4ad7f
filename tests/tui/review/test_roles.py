"""The review screen keeps its decisions for leads when spanlab.toml has a `[team]`
(§15): an annotator's `enter` or `o` is refused, saying why, and nothing is decided."""

from __future__ import annotations

import pytest

from labeler.core.anchoring import review
from labeler.core.team.roles import Member, Team
from labeler.tui.app import SpanlabApp
from tests.tui.conftest import record_notes
from tests.tui.review.conftest import Demo
from tests.tui.review.helpers import screen_of, settle

TEAM = Team(("lead",), ("alice",), "spanlab.toml", (4, 5))


async def test_an_annotator_cannot_decide_a_stale_span(
    demo: Demo, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = Member("alice", "alice", TEAM)
    app = SpanlabApp(demo.store, demo.new, annotator="alice", screen="review", member=alice)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        notes = record_notes(app, monkeypatch)
        await pilot.press("enter")
        await settle(pilot)
        assert len(screen_of(pilot).items) == 32
    assert review.decisions(demo.store) == []
    assert notes == [
        "alice is an annotator; reviewing stale spans is for leads "
        '(spanlab.toml line 4: leads = ["lead"])'
    ]


async def test_a_lead_decides(demo: Demo) -> None:
    lead = Member("lead", "lead", TEAM)
    app = SpanlabApp(demo.store, demo.new, annotator="lead", screen="review", member=lead)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
    (d,) = review.decisions(demo.store)
    assert (d.kind, d.annotator) == ("accept", "lead")

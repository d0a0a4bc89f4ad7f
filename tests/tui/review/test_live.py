"""The review screen while someone else reviews the same store (§15): what they decide
leaves the list at once, and the span shown, when they decided it, is said so."""

from __future__ import annotations

import pytest

from labeler.core.anchoring import review
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from tests.tui.conftest import QUIET, record_notes
from tests.tui.review.conftest import Demo
from tests.tui.review.helpers import screen_of, settle
from tests.tui.test_app import until


async def test_others_decisions_leave_the_list(demo: Demo, monkeypatch: pytest.MonkeyPatch) -> None:
    app = SpanlabApp(demo.store, demo.new, annotator="pilot", screen="review", settings=QUIET)
    alice = Store.open(demo.store.path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        notes = record_notes(app, monkeypatch)
        screen = screen_of(pilot)
        first, second = screen.items[0], screen.items[1]
        review.orphan(alice, demo.new, second.span_id, annotator="alice")
        await until(pilot, lambda: len(screen.items) == 31)
        assert screen.current is not None and screen.current.span_id == first.span_id
        assert notes == []  # not the one shown: nothing to say
        review.orphan(alice, demo.new, first.span_id, annotator="alice")
        await until(pilot, lambda: len(screen.items) == 30)
        assert any(f"{first.query_id}: its span in" in n and "decided by someone else" in n
                   for n in notes), notes  # fmt: skip
        assert first.span_id not in [i.span_id for i in screen.items]
    alice.close()

"""`g` on the review screen: a quote that now occurs twice is kept as two alternatives of
one group (§18), after the person says yes; n keeps everything as it was."""

from __future__ import annotations

from labeler.core.anchoring import review
from labeler.tui.app import SpanlabApp
from labeler.tui.review.widgets import SpanList
from labeler.tui.screens.dialogs import ConfirmScreen
from tests.tui.review.conftest import Demo
from tests.tui.review.helpers import go_to, screen_of, settle


def app_for(demo: Demo) -> SpanlabApp:
    return SpanlabApp(demo.store, demo.new, annotator="pilot", screen="review")


async def test_g_then_y_keeps_both_copies_as_alternatives(demo: Demo) -> None:
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await go_to(pilot, "q-0058", 2414)
        screen = screen_of(pilot)
        sid = screen.items[screen.query_one(SpanList).highlighted or 0].span_id
        await pilot.press("g")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
    query = demo.store.query("q-0058")
    kept = [
        (s.start, s.end, s.group) for s in query.evidence if s.doc == demo.store.span(sid)[1].doc
    ]
    assert sorted(kept) == [(760, 866, 1), (2633, 2739, 1)]
    (d,) = review.decisions(demo.store)
    assert (d.kind, d.span_id, d.new_start) == ("accept", sid, 760)


async def test_g_then_n_changes_nothing(demo: Demo) -> None:
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await go_to(pilot, "q-0058", 2414)
        await pilot.press("g", "n")
        await settle(pilot)
    assert review.decisions(demo.store) == []

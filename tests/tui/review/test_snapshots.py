"""Snapshots of the review screen at 80×24 on the demo swapped to corpus v2.

Each docstring says what the picture must show; a changed picture is reviewed by eye and
accepted with `pytest --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from textual.pilot import Pilot

from labeler.core.anchoring import review
from labeler.tui.app import SpanlabApp
from tests.tui.review.conftest import Demo
from tests.tui.review.helpers import go_to, settle


class SnapCompare(Protocol):
    def __call__(
        self,
        app: SpanlabApp,
        press: tuple[str, ...] = (),
        terminal_size: tuple[int, int] = (80, 24),
        run_before: Callable[[Pilot[None]], Awaitable[None]] | None = None,
    ) -> bool: ...


def at(query: str, start: int, *keys: str) -> Callable[[Pilot[None]], Awaitable[None]]:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await go_to(pilot, query, start)
        if keys:
            await pilot.press(*keys)
            await settle(pilot)

    return run_before


def test_first_span_with_its_one_exact_candidate(demo: Demo, snap_compare: SnapCompare) -> None:
    """The list says "waiting 32" with q-0046 263 highlighted; the old box (263–347) and
    the new box (489–573) show the same API-key sentence under "## Authentication"; one
    candidate row "1 exact 489–573 1.000 q1.00 p1.00 s1.00 d1.00"; footer keys."""
    app = SpanlabApp(demo.store, demo.new, annotator="snap", screen="review")
    assert snap_compare(app, run_before=at("q-0046", 263))


def test_repeated_clause_second_occurrence_picked(demo: Demo, snap_compare: SnapCompare) -> None:
    """q-0058 in warranty.md: two exact candidates (2633–2739 scoring 1.000, then 760–866
    with lower prefix and suffix parts); "2" highlights the second, and the new box shows
    the clause in section 1 with its different context."""
    app = SpanlabApp(demo.store, demo.new, annotator="snap", screen="review")
    assert snap_compare(app, run_before=at("q-0058", 2414, "2"))


def test_reworded_span_with_differences_marked(demo: Demo, snap_compare: SnapCompare) -> None:
    """q-0053 in shipping.md: one fuzzy candidate 1768–1858 (q0.89); in the old box
    "Signature" and "orders" are struck through; in the new box "A signature" and "every
    order" are underlined."""
    app = SpanlabApp(demo.store, demo.new, annotator="snap", screen="review")
    assert snap_compare(app, run_before=at("q-0053", 1768))


def test_edges_adjusted_by_hand(demo: Demo, snap_compare: SnapCompare) -> None:
    """After "]" and "{" on q-0053 the new box is titled "new  1770–1852  adjusted" and its
    highlight runs from "signature" to "or", leaving out "€500."; the old box marks
    "Signature", "orders" and "€500." as missing from it."""
    app = SpanlabApp(demo.store, demo.new, annotator="snap", screen="review")
    keys = ("right_square_bracket", "left_curly_bracket")
    assert snap_compare(app, run_before=at("q-0053", 1768, *keys))


def test_orphan_asks_for_confirmation(demo: Demo, snap_compare: SnapCompare) -> None:
    """q-0052, whose sentence was deleted: the candidates box says "none: o marks the span
    orphaned"; "o" opens a dialog quoting "Each recovery code can be used only once." with
    the buttons "Orphan it (y)" and "Keep it (n)", the second focused."""
    app = SpanlabApp(demo.store, demo.new, annotator="snap", screen="review")
    assert snap_compare(app, run_before=at("q-0052", 1141, "o"))


def test_high_contrast_theme(demo: Demo, snap_compare: SnapCompare) -> None:
    """The reworded span in the high-contrast theme (16 ANSI colours only): black
    background, blue quote, red struck and green underlined differences."""
    app = SpanlabApp(demo.store, demo.new, annotator="snap", theme="high-contrast", screen="review")
    assert snap_compare(app, run_before=at("q-0053", 1768))


def test_nothing_left_to_review(demo: Demo, snap_compare: SnapCompare) -> None:
    """Every span resolved beforehand: "waiting 0", "Nothing waits for review.", the
    labels bound to the corpus v2 hash (sha256:70f4958d…, "the corpus as it is now");
    the candidates and new boxes are hidden."""
    for p in review.proposals(demo.store, demo.new):
        best = p.proposal.candidates[:1]
        if best:
            review.accept(
                demo.store, demo.new, p.pending.span_id, best[0].start, best[0].end, annotator="a"
            )
        else:
            review.orphan(demo.store, demo.new, p.pending.span_id, annotator="a")
    app = SpanlabApp(demo.store, demo.new, annotator="snap", screen="review")
    assert snap_compare(app, run_before=settle)

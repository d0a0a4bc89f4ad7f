"""Snapshots of the triage screens at 80×24, each saying what the picture must show.

Deterministic by construction: the run is written under fixed ids and start times, the
filter field does not blink (settings), and no screen shows a timing.
Update with: pytest tests/tui/triage/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from labeler.tui.app import SpanlabApp

SnapCompare = Callable[..., bool]


async def settle(pilot: Pilot[None]) -> None:
    """Let the detail worker finish and its result reach the screen."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_summary_of_the_latest_run(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """Head, three lines (issue 45: whole at 80 columns): 20250102-120000-000000 run FAIL ·
    c40 (candidate colour) FAIL vs c40-ov20 (baseline colour); ▲1 ▼2 at k = 1 · ▲1 ▼1 at
    budget 19 (flag: PASS at budget 19); the settings (k 1 · depth 3 · match chunk (also
    union) · coverage ≥ 0.8 · retriever lexical · candidates …), issue 22.
    Left: c40-ov20 (baseline, dimmed) then c40; under the gates, the candidate under the
    other match rule (under union (split evidence counted), gained, lost, Δrecall).
    highlighted with +1 −2 Δrecall -0.333; gates ✗ lost 2 ≤1 and ✗ critical lost 1 ≤0.
    Right: the metrics table with ▌ baseline / ┊ candidate / Δ columns (recall@k 0.667
    0.333 -0.333 ✗ in the error colour, chunks 8 5 -3 unmarked), then the bootstrap
    interval [-1.000, +1.000] and "too small to be decisive (3 answerable queries < 30)".
    Footer: c Candidate, / Filter, ^q Quit, ? Keys."""
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


def test_a_cut_loss_with_both_boundary_sets(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """q-0001 lost (cut): the verdicts say c40-ov20 hit at rank 1 with chunk 20..60 and c40 CUT,
    best 0..40 covering 51%, then plan's words for it: c40 cut at "rr bbss |ccpp ccq" at 40,
    overlap ≥ 13 at this size holds it where it sits (issue 30). The a.md window 0..160 shows
    the evidence (blocks bb and cc) bold and shaded like the legend's "evidence", a baseline
    mark ▌ before every block, a candidate mark ┊ before every other block, the ┊ at 40 (inside
    the evidence) reversed, and the baseline's chunk 20..60 underlined. The ranked lists sit
    side by side: left e1 at rank 1, right rank 1 a 0..40 with e1~51% and "— e1: cut, no chunk
    holds it" (a cut's own words since issue 22). Footer: esc Back, n p Next/prev, e Fix label,
    z Zoom text, ^q Quit, ? Keys."""

    async def open_cut_loss(pilot: Pilot[None]) -> None:
        await pilot.press("2", "down", "enter")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_cut_loss)


def test_the_frontier_plot(snap_compare: SnapCompare, app: SpanlabApp) -> None:
    """Two plots side by side: recall@k against chunks and against dup pairs@k, with B
    (c40-ov20, baseline colour) at recall 0.667 / 8 chunks and 1 (c40, candidate colour)
    at 0.333 / 5 chunks; below, the legend lists both with recall, chunks and dup@k.
    Footer: c Candidate, / Filter, ^q Quit, ? Keys."""

    async def open_frontier(pilot: Pilot[None]) -> None:
        await pilot.press("3")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_frontier)

"""The frontier plot's Pareto front and ticks: pure functions, checked exactly."""

from __future__ import annotations

from evaluator.runs.frontier import FrontierPoint
from labeler.tui.triage.plot import TICKS, pareto, staircase, ticks


def point(name: str, recall: float, chunks: int, dups: float = 0.0) -> FrontierPoint:
    return FrontierPoint(name, recall, chunks, dups, name == "B")


def test_the_pareto_front_keeps_what_no_other_beats_on_both_counts() -> None:
    # The demo's: tok256-ov64 (91 chunks, 0.914) and markdown-200 (166, 0.938) are the front;
    # the baseline (181, 0.805) and tok128-ov0 (144, 0.742) are beaten by both.
    points = [point("B", 0.805, 181, 0.03), point("1", 0.742, 144, 0.0),
              point("2", 0.914, 91, 0.11), point("3", 0.938, 166, 0.0)]  # fmt: skip
    assert [p.name for p in pareto(points, "chunk_count")] == ["2", "3"]
    assert [p.name for p in pareto(points, "duplicate_pairs")] == ["3"]
    assert staircase(pareto(points, "chunk_count"), "chunk_count") == (
        [91.0, 166.0, 166.0],
        [0.914, 0.914, 0.938],
    )
    tie = [point("x", 0.5, 10), point("y", 0.5, 10), point("z", 0.4, 5)]
    assert [p.name for p in pareto(tie, "chunk_count")] == ["z", "x"]


def test_ticks_sit_inside_the_axis_in_the_registrys_format() -> None:
    values, labels = ticks(0.0, 0.112676, "duplicate_pairs@k")
    assert values == [0.112676 * f for f in TICKS]
    assert labels == ["0.01", "0.04", "0.07", "0.10"]
    assert ticks(77.5, 194.5, "chunk_count")[1] == ["89", "121", "151", "183"]
    assert ticks(0.7, 0.98, "evidence_recall@k")[1] == ["0.728", "0.804", "0.876", "0.952"]
    assert all(0.0 < v < 0.112676 for v in values)

"""The Chroma research metrics where their reference code is particular.

Closed intersections (touching counts as meeting, adding nothing to I), a precision
denominator that sums overlapping chunks, and precision_omega's union of every chunk
that meets the evidence.
"""

from __future__ import annotations

import pytest

from tests.evaluator.metrics.fixtures import C1, C2, C3, C4, C5, Q1, Q2, chunk, query, ranked, span
from tests.evaluator.metrics.helpers import values

TOUCHED = query("q5", span("a", 40, 50))
"""Inside C3 [30,50); C2 [20,40) ends where it starts, C4 [50,80) starts where it ends."""


def test_chunks_that_only_touch_add_nothing_to_retrieved_metrics() -> None:
    # Top 2 = C2 and C4, both touching 40..50: I = 0, Σ|r| = 50, unused = 10.
    got = values(TOUCHED, ranked(C2, C4, C3))
    assert got["chroma_recall"] == 0.0
    assert got["chroma_precision"] == 0.0
    assert got["chroma_iou"] == 0.0
    assert got["evidence_recall@k"] == 0.0


def test_chunks_that_only_touch_widen_precision_omega() -> None:
    # C2, C3 and C4 all meet 40..50 (closed), so the union is 20..80: 10 / 60,
    # where C3 alone would give 10 / 20. This is the reference code's arithmetic.
    assert values(TOUCHED, ranked(C3))["chroma_precision_omega"] == pytest.approx(10 / 60)


def test_overlapping_chunks_count_twice_in_precision() -> None:
    # C2 [20,40) and C3 [30,50) overlap by 10: Σ|r| = 40, not the union's 30.
    got = values(Q1, ranked(C2, C3))
    assert got["chroma_recall"] == 1.0
    assert got["chroma_precision"] == pytest.approx(10 / 40)
    assert got["chroma_iou"] == pytest.approx(10 / 40)


def test_precision_counts_retrieved_chunks_of_other_documents() -> None:
    # One chunk from b in the top 2 still adds its 30 characters to Σ|r|.
    other = chunk("b", 0, 30)
    assert values(Q1, ranked(C2, other))["chroma_precision"] == pytest.approx(10 / 50)


def test_precision_omega_is_a_union_over_every_meeting_chunk() -> None:
    # Q2: C4 [50,80) and C5 [80,100) meet the spans; their union 50..100 is 50,
    # I_Ω = 20; the ranking does not matter.
    assert values(Q2, ranked(C1))["chroma_precision_omega"] == pytest.approx(20 / 50)
    assert values(Q2, ranked(C5, C4))["chroma_precision_omega"] == pytest.approx(20 / 50)


def test_precision_omega_adds_evidence_no_chunk_covers() -> None:
    # Only 0..20 is indexed; the span 15..30 is covered 15..20: I = 5, union of the
    # chunk and the uncovered 20..30 is 0..30.
    got = values(query("q6", span("a", 15, 30)), ranked(C1), index=[C1])
    assert got["chroma_precision_omega"] == pytest.approx(5 / 30)
    assert got["chroma_iou"] == pytest.approx(5 / (20 + 10))


def test_precision_omega_is_zero_when_nothing_meets_the_evidence() -> None:
    assert values(query("q7", span("a", 90, 95)), [], index=[C1])["chroma_precision_omega"] == 0.0

"""Every measure on the hand-placed fixtures; expected values are worked out in comments."""

from __future__ import annotations

import pytest

from evaluator.metrics import MEASURES, MetricSettings, covers
from evaluator.metrics.base import Value
from tests.evaluator.metrics.fixtures import (
    C1,
    C2,
    C3,
    C4,
    C5,
    D1,
    Q1,
    Q2,
    Q3,
    Q4,
    RANKED,
    SETTINGS,
    chunk,
    query,
    ranked,
    span,
)
from tests.evaluator.metrics.helpers import values


def expect(actual: dict[str, Value | None], expected: dict[str, Value | None]) -> None:
    assert actual.keys() == expected.keys()
    for name, value in expected.items():
        if isinstance(value, float):
            assert actual[name] == pytest.approx(value), name
        else:
            assert actual[name] == value, name


def test_single_span_crowded_below_k() -> None:
    # Top 2 = C3 [30,50), C1 [0,20); the span 22..32 sits in C2 at rank 3.
    # Chroma: I = C3 ∩ e = 30..32 (2); Σ|r| = 40; unused 22..30 (8).
    # Omega: C2 and C3 touch e; I = 10 over the union 20..50 (30).
    expect(
        values(Q1, RANKED["q1"]),
        {
            "evidence_recall@k": 0.0,
            "hit@k": False,
            "document_hit@k": True,
            "oracle_recall": 1.0,
            "evidence_coverage@k": (2 / 10,),
            "first_match_rank": (3,),
            "mean_first_match_rank": 3.0,
            "duplicate_pairs@k": 0,
            "unique_evidence@k": 0,
            "prompt_tokens@k": 40,
            "chroma_recall": 2 / 10,
            "chroma_precision": 2 / 40,
            "chroma_iou": 2 / 48,
            "chroma_precision_omega": 10 / 30,
            "abstention_top1": None,
        },
    )


def test_multi_span_half_found() -> None:
    # Top 2 = C4 [50,80), D1 (doc b): span 52..62 at rank 1, span 85..95 (in C5) at rank 3.
    # Chroma: I = 10, Σ|e| = 20, Σ|r| = 60, unused 10. Omega: C4, C5, I = 20 over 50..100.
    expect(
        values(Q2, RANKED["q2"]),
        {
            "evidence_recall@k": 0.5,
            "hit@k": False,
            "document_hit@k": True,
            "oracle_recall": 1.0,
            "evidence_coverage@k": (1.0, 0.0),
            "first_match_rank": (1, 3),
            "mean_first_match_rank": 2.0,
            "duplicate_pairs@k": 0,
            "unique_evidence@k": 1,
            "prompt_tokens@k": 60,
            "chroma_recall": 10 / 20,
            "chroma_precision": 10 / 60,
            "chroma_iou": 10 / 70,
            "chroma_precision_omega": 20 / 50,
            "abstention_top1": None,
        },
    )


def test_cross_document_span_cut_by_a_boundary() -> None:
    # Top 2 = D1 [b 0,30), C1 [a 0,20). a 10..18 is in C1 (rank 2); b 25..35 is split
    # 5/5 by the cut at 30, so nothing matches it anywhere: oracle 1/2, rank None.
    # Chroma: I = 8 (a) + 5 (b) = 13, Σ|e| = 18, Σ|r| = 50, unused b 30..35 (5).
    # Omega: a: C1, I 8 over 0..20; b: D1 and D2, I 10 over 0..60 -> 18 / 80.
    expect(
        values(Q3, RANKED["q3"]),
        {
            "evidence_recall@k": 0.5,
            "hit@k": False,
            "document_hit@k": True,
            "oracle_recall": 0.5,
            "evidence_coverage@k": (1.0, 5 / 10),
            "first_match_rank": (2, None),
            "mean_first_match_rank": 2.0,
            "duplicate_pairs@k": 0,
            "unique_evidence@k": 1,
            "prompt_tokens@k": 50,
            "chroma_recall": 13 / 18,
            "chroma_precision": 13 / 50,
            "chroma_iou": 13 / 55,
            "chroma_precision_omega": 18 / 80,
            "abstention_top1": None,
        },
    )


def test_abstention_query_only_has_list_measures_and_top1() -> None:
    expect(
        values(Q4, RANKED["q4"]),
        {
            "evidence_recall@k": None,
            "hit@k": None,
            "document_hit@k": None,
            "oracle_recall": None,
            "evidence_coverage@k": None,
            "first_match_rank": None,
            "mean_first_match_rank": None,
            "duplicate_pairs@k": 0,
            "unique_evidence@k": None,
            "prompt_tokens@k": 40,
            "chroma_recall": None,
            "chroma_precision": None,
            "chroma_iou": None,
            "chroma_precision_omega": None,
            "abstention_top1": 0.42,
        },
    )


def test_a_full_hit() -> None:
    got = values(Q2, ranked(C5, C4, D1))
    assert (got["evidence_recall@k"], got["hit@k"], got["first_match_rank"]) == (1.0, True, (2, 1))
    assert got["unique_evidence@k"] == 2


def test_document_hit_needs_every_evidence_document() -> None:
    # Q3's spans are in a and b; a top 2 from a alone misses document b.
    assert values(Q3, ranked(C1, C2))["document_hit@k"] is False


def test_coverage_threshold_is_inclusive_at_exactly_point_eight() -> None:
    at = span("a", 42, 52)  # C3 [30,50) covers 8 of 10 characters
    below = span("a", 43, 53)  # C3 covers 7, C4 [50,80) covers 3
    assert covers(C3, at, 0.8)
    assert not covers(C3, below, 0.8)
    assert covers(C3, below, 0.7)
    assert values(query("qa", at), ranked(C3, C1))["evidence_recall@k"] == 1.0
    assert values(query("qb", below), ranked(C3, C4))["oracle_recall"] == 0.0


def test_containment_matches_and_other_documents_never_do() -> None:
    assert covers(C2, span("a", 22, 32), 1.0)
    assert not covers(D1, span("a", 10, 18), 0.8)


def test_first_match_rank_beyond_k_is_a_rank_beyond_depth_is_none() -> None:
    e = query("q8", span("a", 2, 12))  # only C1 [0,20) matches
    crowded = ranked(C2, C3, C1, C4)
    gone = ranked(C2, C3, C4, C5, C1)  # C1 at rank 5 > depth 4
    assert values(e, crowded)["first_match_rank"] == (3,)
    assert values(e, gone)["first_match_rank"] == (None,)
    assert values(e, gone)["mean_first_match_rank"] is None
    deeper = MetricSettings(k=2, depth=5)
    assert values(e, gone, settings=deeper)["first_match_rank"] == (5,)


def test_duplicate_pairs_at_the_threshold() -> None:
    # P 0..10, Q 3..13, R 4..14: P-Q share 7/10 (= 0.7, a pair), P-R 6/10 (no),
    # Q-R 9/10 (a pair); S in document b at the same offsets pairs with nothing.
    p, q, r, s = chunk("a", 0, 10), chunk("a", 3, 13), chunk("a", 4, 14), chunk("b", 0, 10)
    top4 = MetricSettings(k=4, depth=4, duplicate_threshold=0.7)
    assert values(Q4, ranked(p, q, r, s), settings=top4)["duplicate_pairs@k"] == 2
    stricter = MetricSettings(k=4, depth=4, duplicate_threshold=0.75)
    assert values(Q4, ranked(p, q, r, s), settings=stricter)["duplicate_pairs@k"] == 1


def test_duplicate_pairs_divide_by_the_shorter_chunk() -> None:
    # 5..15 lies inside 0..20: shared 10 / shorter 10 = 1, though it is half the longer.
    assert values(Q4, ranked(chunk("a", 0, 20), chunk("a", 5, 15)))["duplicate_pairs@k"] == 1


def test_settings_k_limits_the_top() -> None:
    top1 = MetricSettings(k=1, depth=4)
    assert values(Q2, ranked(C4, C5), settings=top1)["evidence_recall@k"] == 0.5
    assert values(Q2, ranked(C4, C5), settings=top1)["prompt_tokens@k"] == 30


def test_abstention_with_an_empty_list_has_no_top1() -> None:
    assert values(Q4, [])["abstention_top1"] is None
    assert values(Q1, [])["chroma_precision"] is None  # nothing retrieved: Σ|r| = 0


def test_each_measure_states_its_parameters() -> None:
    described = {m.name: m.describe(SETTINGS) for m in MEASURES}
    assert described["evidence_recall@k"] == {
        "name": "evidence_recall@k",
        "k": 2,
        "coverage_threshold": 0.8,
    }
    assert described["chroma_precision_omega"] == {"name": "chroma_precision_omega"}
    assert all(m.__doc__ and "=" in m.__doc__ for m in MEASURES)

"""Baseline against candidate: statuses, causes, counts, breakdowns and significance."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pytest

from evaluator.chunk import Chunk
from evaluator.metrics import MetricSettings, evaluate
from evaluator.metrics.compare import (
    Cause,
    Status,
    StatusCounts,
    compare,
    mcnemar_exact,
    paired_bootstrap,
)
from evaluator.metrics.evaluate import CandidateResult
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query
from tests.evaluator.metrics.fixtures import (
    C1,
    C2,
    C3,
    C4,
    C5,
    INDEX,
    Q1,
    Q2,
    Q3,
    Q4,
    RANKED,
    SETTINGS,
    TEXTS,
    chunk,
    query,
    ranked,
    span,
)

E1 = chunk("b", 20, 40)
"""The baseline's chunk that holds q3's `b` span whole; the candidate cut it at 30."""
Q8 = query("q8", span("a", 2, 12), slices=("critical",))
Q9 = query("q9", span("a", 52, 62))
Q10 = query("q10", span("a", 85, 95))
QUERIES = [Q1, Q2, Q3, Q4, Q8, Q9, Q10]

BASELINE = {
    "q1": ranked(C2, C1),  # hit
    "q2": RANKED["q2"],  # miss (1 of 2 spans)
    "q3": ranked(C1, E1),  # hit
    "q4": ranked(C1, top1=0.40),
    "q8": ranked(C1, C2),  # hit
    "q9": ranked(C4),  # hit
    "q10": ranked(C1, C2, C5),  # miss
}
CANDIDATE = {
    "q1": RANKED["q1"],  # C2 at rank 3: lost, crowded
    "q2": ranked(C5, C4),  # gained
    "q3": RANKED["q3"],  # the b span is cut: lost, cut
    "q4": RANKED["q4"],  # top-1 0.42
    "q8": ranked(C2, C3, C4, C5, C1),  # C1 beyond depth 4: lost, disappeared
    "q9": ranked(C4),  # unchanged hit
    "q10": ranked(C1, C2, C5),  # unchanged miss
}


def result(
    name: str,
    queries: Sequence[Query],
    ranked_lists: Mapping[str, Sequence[Ranked]],
    index: Sequence[Chunk],
    settings: MetricSettings = SETTINGS,
) -> CandidateResult:
    return evaluate(
        queries, ranked_lists, index, settings=settings, texts=TEXTS, count_tokens=len, name=name
    )


def fixture_comparison() -> tuple[CandidateResult, CandidateResult]:
    base = result("base", QUERIES, BASELINE, [*INDEX, E1])
    return base, result("cand", QUERIES, CANDIDATE, INDEX)


def test_status_and_cause_per_query() -> None:
    c = compare(*fixture_comparison())
    got = {qid: (ch.status, ch.cause) for qid, ch in c.queries.items()}
    assert got == {
        "q1": (Status.LOST, Cause.CROWDED),
        "q2": (Status.GAINED, None),
        "q3": (Status.LOST, Cause.CUT),
        "q4": (None, None),
        "q8": (Status.LOST, Cause.DISAPPEARED),
        "q9": (Status.UNCHANGED_HIT, None),
        "q10": (Status.UNCHANGED_MISS, None),
    }
    assert c.queries["q2"].recall_delta == 0.5
    assert c.queries["q3"].recall_delta == -0.5
    assert c.queries["q4"].top1_delta == pytest.approx(0.02)
    assert c.queries["q4"].recall_delta is None
    assert [ch.query for ch in c.with_status(Status.LOST)] == ["q1", "q3", "q8"]


def test_counts_and_deltas_overall_and_per_group() -> None:
    c = compare(*fixture_comparison())
    assert c.overall.counts == StatusCounts(gained=1, lost=3, unchanged_hit=1, unchanged_miss=1)
    assert c.overall.queries == 7
    # recall: baseline (1 + 1/2 + 1 + 1 + 1 + 0) / 6, candidate (0 + 1 + 1/2 + 0 + 1 + 0) / 6
    assert c.overall.deltas["evidence_recall@k"] == pytest.approx(-2 / 6)
    assert c.overall.deltas["abstention_top1"] == pytest.approx(0.02)
    critical = c.breakdowns["slice"]["critical"]  # q1 lost, q2 gained, q4, q8 lost
    assert critical.counts == StatusCounts(gained=1, lost=2)
    assert critical.queries == 4
    # baseline (1 + 1/2 + 1) / 3, candidate (0 + 1 + 0) / 3
    assert critical.deltas["evidence_recall@k"] == pytest.approx(-1.5 / 3)
    assert c.breakdowns["doc"]["b"].counts == StatusCounts(lost=1)
    assert c.breakdowns["boundary"]["cross-reference"].deltas["oracle_recall"] == -0.5


def test_a_small_set_is_not_decisive() -> None:
    sig = compare(*fixture_comparison()).significance
    assert sig.answerable == 6
    assert not sig.decisive
    assert sig.reason == "too small to be decisive (6 answerable queries < 30)"
    assert sig.mcnemar_p is None
    assert sig.recall_interval is not None
    assert sig.recall_interval.mean_difference == pytest.approx(-2 / 6)
    assert sig.recall_interval.pairs == 6


def counted_set(gained: int, lost: int, same: int) -> tuple[CandidateResult, CandidateResult]:
    """Single-span queries in C4: a list with C4 hits, a list with C1 alone misses."""
    hit, miss = ranked(C4), ranked(C1)
    plan = [(miss, hit)] * gained + [(hit, miss)] * lost + [(hit, hit)] * same
    queries = [query(f"n{i}", span("a", 52, 62)) for i in range(len(plan))]
    before = {q.id: b for q, (b, _) in zip(queries, plan, strict=True)}
    after = {q.id: a for q, (_, a) in zip(queries, plan, strict=True)}
    return result("base", queries, before, INDEX), result("cand", queries, after, INDEX)


def test_thirty_answerable_queries_get_an_exact_mcnemar_p() -> None:
    sig = compare(*counted_set(gained=10, lost=2, same=18)).significance
    assert sig.decisive and sig.reason is None
    assert sig.mcnemar_p == pytest.approx(0.0386, abs=5e-5)


def test_twenty_nine_are_too_few() -> None:
    sig = compare(*counted_set(gained=10, lost=2, same=17)).significance
    assert not sig.decisive
    assert sig.reason == "too small to be decisive (29 answerable queries < 30)"


def test_lost_with_nothing_within_depth_disappeared() -> None:
    c = compare(*counted_set(gained=0, lost=1, same=0))
    assert c.queries["n0"].cause == Cause.DISAPPEARED


def test_mcnemar_exact_values() -> None:
    # b = 10, c = 2: 2 · (C(12,0) + C(12,1) + C(12,2)) / 2^12 = 2 · 79 / 4096.
    assert mcnemar_exact(10, 2) == 158 / 4096
    assert mcnemar_exact(2, 10) == 158 / 4096
    assert mcnemar_exact(6, 0) == 2 / 64
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


def test_bootstrap_is_reproducible_with_its_seed() -> None:
    diffs = [1.0, -0.5, 0.0, 0.5, 1.0, 0.0, -1.0, 0.5]
    assert paired_bootstrap(diffs, seed=3) == paired_bootstrap(diffs, seed=3)
    constant = paired_bootstrap([0.5] * 12, seed=1)
    assert (constant.low, constant.high, constant.mean_difference) == (0.5, 0.5, 0.5)


def test_bootstrap_interval_of_a_known_distribution() -> None:
    # Mean of 4 draws from {1, 0, 0, 0}: P(0) = 0.32 > 2.5%, P(1) = 1/256 < 2.5% and
    # P(≥ 0.75) = 13/256 > 2.5%, so the 95% interval is [0, 0.75].
    got = paired_bootstrap([1.0, 0.0, 0.0, 0.0], resamples=10_000, seed=0)
    assert (got.low, got.high, got.mean_difference) == (0.0, 0.75, 0.25)


def test_bootstrap_with_all_distinct_differences_stays_bounded() -> None:
    diffs = [i / 5000 - 0.4 for i in range(5000)]
    got = paired_bootstrap(diffs, resamples=2_000, seed=0)
    assert got.low < got.mean_difference < got.high
    assert got.mean_difference == pytest.approx(0.0999, abs=1e-4)


def test_comparison_serialises() -> None:
    dumped = json.loads(json.dumps(compare(*fixture_comparison()).to_json()))
    assert dumped["queries"]["q3"] == {
        "query": "q3",
        "status": "lost",
        "recall_delta": -0.5,
        "top1_delta": None,
        "cause": "cut",
    }
    assert dumped["significance"]["recall_interval"]["seed"] == 0


def test_results_on_other_queries_or_settings_are_refused() -> None:
    base, _ = fixture_comparison()
    other = result("other", [Q1], CANDIDATE, INDEX)
    with pytest.raises(ValueError, match="different queries"):
        compare(base, other)
    wider = result("wider", QUERIES, CANDIDATE, INDEX, MetricSettings(k=3, depth=4))
    with pytest.raises(ValueError, match="different settings"):
        compare(base, wider)

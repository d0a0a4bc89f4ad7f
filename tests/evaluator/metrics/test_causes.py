"""The split cause and evidence_coverage@k (§7), on the hand-placed fixtures.

The split cases use span a 36..56, which no single chunk holds: C3 [30,50) covers 36..50
(14/20 = 0.7) and C4 [50,80) covers 50..56 (6/20 = 0.3); together they cover all of it.
"""

from __future__ import annotations

import pytest

from evaluator.metrics import MetricSettings
from evaluator.metrics.causes import DEPTH_ORDER, Cause, query_cause, span_cause
from evaluator.metrics.compare import compare
from tests.evaluator.metrics.fixtures import (
    C1,
    C2,
    C3,
    C4,
    C5,
    INDEX,
    SETTINGS,
    chunk,
    query,
    ranked,
)
from tests.evaluator.metrics.fixtures import span as span_of
from tests.evaluator.metrics.helpers import view
from tests.evaluator.metrics.test_compare import result

SPLIT = query("qs", span_of("a", 36, 56))
UNION = MetricSettings(k=2, depth=4, match="union")


def test_coverage_is_the_union_of_the_top_k_over_the_span() -> None:
    v = view(SPLIT, ranked(C3, C4, C1))
    assert v.coverage_in_k == (1.0,)
    assert v.first_ranks == (None,)
    assert v.held == (False,)
    assert v.span_causes == (Cause.SPLIT,)


def test_a_span_covered_only_in_part_by_the_top_k_is_cut() -> None:
    v = view(SPLIT, ranked(C3, C1, C4))  # C4 at rank 3: 14/20 covered in the top 2
    assert v.coverage_in_k == (14 / 20,)
    assert v.span_causes == (Cause.CUT,)


def test_overlapping_chunks_are_counted_once() -> None:
    # C2 covers 25..40 and C3 30..45, 15/20 = 0.75 each: no single match, shares sum to 1.5.
    v = view(query("qo", span_of("a", 25, 45)), ranked(C2, C3))
    assert v.coverage_in_k == (1.0,)
    assert v.first_ranks == (None,)
    assert v.span_causes == (Cause.SPLIT,)


def test_union_rule_matches_a_split_span_at_the_rank_that_completes_it() -> None:
    v = view(SPLIT, ranked(C1, C3, C5, C4), settings=UNION)
    assert v.first_ranks == (4,)  # C3 then C4: covered at rank 4
    # No chunk holds a 36..56 (C3 70 %, C4 30 %) and the top 2 cover 70 %: a boundary cut it.
    # It was `crowded` before, which needs one chunk that holds it (§7, issue 22).
    assert v.span_causes == (Cause.CUT,)
    hit = view(SPLIT, ranked(C3, C4), settings=UNION)
    assert hit.first_ranks == (2,)
    assert hit.matched_in_k == (True,)
    assert hit.span_causes == (None,)
    assert hit.matchable == (True,)


def test_the_chunk_rule_is_the_default_and_unknown_rules_are_refused() -> None:
    assert SETTINGS.match == "chunk"
    with pytest.raises(Exception, match="match must be one of chunk, union"):
        MetricSettings(match="pieces")


CAUSE_TABLE = [
    # rank: first single chunk's rank within depth; cover: what the top k (k = 2) cover
    # together; held: some chunk of the index holds the span (threshold 0.8).
    # rank  cover  held   chunk rule         union rule
    (1,     1.0,   True,  None,              None),
    (2,     0.8,   True,  None,              None),
    (None,  0.9,   False, Cause.SPLIT,       None),  # in pieces: a hit under union
    (None,  0.8,   False, Cause.SPLIT,       None),  # exactly the threshold
    (3,     0.85,  True,  Cause.SPLIT,       None),  # all retrieved beats crowded
    (3,     0.5,   True,  Cause.CROWDED,     Cause.CROWDED),
    (7,     0.0,   True,  Cause.CROWDED,     Cause.CROWDED),
    (None,  0.5,   True,  Cause.DISAPPEARED, Cause.DISAPPEARED),
    (None,  0.79,  False, Cause.CUT,         Cause.CUT),  # q-0014 under union: cut, not crowded
    (None,  0.0,   False, Cause.CUT,         Cause.CUT),
]  # fmt: skip
"""The cause words under both rules, worked by hand (the table of issue 22's closing note)."""


@pytest.mark.parametrize(("rank", "cover", "held", "chunk_rule", "union_rule"), CAUSE_TABLE)
def test_span_cause_table(
    rank: int | None, cover: float, held: bool, chunk_rule: Cause, union_rule: Cause
) -> None:
    assert span_cause(rank, cover, held, k=2, threshold=0.8) == chunk_rule
    assert span_cause(rank, cover, held, k=2, threshold=0.8, match="union") == union_rule


def test_under_union_a_span_no_chunk_holds_is_never_crowded() -> None:
    for rank, cover, held, _, union_rule in CAUSE_TABLE:
        if not held:
            assert union_rule in (None, Cause.CUT), (rank, cover)


def test_split_states_its_coverage_below_100_percent() -> None:
    assert Cause.SPLIT.said(1.0) == "every part was retrieved, split across chunks"
    assert Cause.SPLIT.said(0.93) == "retrieved in pieces: the top k cover 93% of it together"
    assert Cause.SPLIT.said(0.999) == "retrieved in pieces: the top k cover 99% of it together"
    assert Cause.SPLIT.said(0.29).endswith("cover 29% of it together")  # 28.999… in binary
    assert Cause.CUT.said(0.5) == Cause.CUT.words


def test_the_view_words_a_span_under_both_rules() -> None:
    # a 36..56 behind C1 at rank 1, C3 at 2, C4 at 3 (k = 2): 70 % covered in the top 2,
    # no chunk holds it: cut under both rules; with C4 at rank 2 it is split, or a hit.
    chunk_rule, union_rule = MetricSettings(k=2, depth=4), UNION
    assert view(SPLIT, ranked(C1, C3, C4), settings=chunk_rule).span_causes == (Cause.CUT,)
    assert view(SPLIT, ranked(C1, C3, C4), settings=union_rule).span_causes == (Cause.CUT,)
    assert view(SPLIT, ranked(C3, C4), settings=chunk_rule).span_causes == (Cause.SPLIT,)
    assert view(SPLIT, ranked(C3, C4), settings=union_rule).span_causes == (None,)
    held = query("qh", span_of("a", 32, 48))  # C3 [30,50) holds it whole
    assert view(held, ranked(C1, C2, C3), settings=union_rule).span_causes == (Cause.CROWDED,)
    assert view(held, ranked(C1, C2), settings=union_rule).span_causes == (Cause.DISAPPEARED,)


def test_a_query_takes_its_deepest_span_cause() -> None:
    assert query_cause([None, Cause.SPLIT]) == Cause.SPLIT
    assert query_cause([Cause.SPLIT, Cause.CROWDED]) == Cause.CROWDED
    assert query_cause([Cause.CROWDED, Cause.CUT, Cause.DISAPPEARED]) == Cause.CUT
    assert query_cause([None, None]) is None
    assert DEPTH_ORDER[-1] == Cause.SPLIT


def test_a_lost_split_query_says_split_and_union_counts_it_as_a_hit() -> None:
    whole = chunk("a", 30, 60)
    base = result("base", [SPLIT], {"qs": ranked(whole)}, [*INDEX, whole])
    cand = result("cand", [SPLIT], {"qs": ranked(C3, C4)}, INDEX)
    change = compare(base, cand).queries["qs"]
    assert (change.status, change.cause) == ("lost", Cause.SPLIT)
    assert cand.span_causes["qs"] == (Cause.SPLIT,)
    assert cand.aggregates["evidence_coverage@k"] == 1.0
    union = result("cand", [SPLIT], {"qs": ranked(C3, C4)}, INDEX, UNION)
    assert union.aggregates["hit@k"] == 1.0
    assert union.breakdowns["doc"]["a"].metrics["evidence_coverage@k"] == 1.0


def test_each_rule_defines_its_causes_and_union_has_no_split() -> None:
    from evaluator.metrics.causes import DEFINITIONS, legend

    assert set(DEFINITIONS["chunk"]) == set(Cause)
    assert set(DEFINITIONS["union"]) == {
        Cause.CUT,
        Cause.CROWDED,
        Cause.DISAPPEARED,
        Cause.NO_SIGNAL,
    }
    assert "split" not in legend("union") and legend("chunk").startswith("split: ")

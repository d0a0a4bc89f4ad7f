"""Measures over groups of alternatives (§18): a fact in two documents, either will do.

Documents `x` and `y` both hold the sentence FACT; the query labels both copies. With
k = 1 and the `x` copy's chunk at rank 1, the grouped query is a hit with recall 1; the
same spans without a group are two facts, half found (the old meaning, unchanged).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from evaluator.chunk import Chunk
from evaluator.metrics import MEASURES, ChunkIndex, MetricSettings, QueryView, TokenCounter
from evaluator.metrics.base import Value
from evaluator.metrics.causes import Cause, best_cause
from evaluator.retrieval.base import Ranked
from labeler.core.errors import LabelError
from labeler.core.values import Query, Span, evidence_groups

FACT = "Refunds are paid within 14 days."
TEXTS = {"x": "Intro text here. " + FACT + " Tail.", "y": "Other words first. " + FACT + " End."}
SETTINGS = MetricSettings(k=1, depth=3, coverage_threshold=0.8, duplicate_threshold=0.7)
X, Y = (Chunk(f"{d}0", d, 0, len(TEXTS[d])) for d in ("x", "y"))


def copy(doc: str, group: int | None) -> Span:
    start = TEXTS[doc].index(FACT)
    return replace(Span.from_text(TEXTS[doc], doc, start, start + len(FACT)), group=group)


def measured(query: Query, *chunks: Chunk) -> dict[str, Value | None]:
    ranked = [Ranked(c, 0.9 - 0.1 * i) for i, c in enumerate(chunks)]
    view = QueryView(query, ranked, ChunkIndex.build([X, Y]), SETTINGS, TokenCounter(len, TEXTS))
    return {m.name: m.value(view) for m in MEASURES}


def test_two_alternatives_one_at_rank_1_is_a_hit_with_recall_1() -> None:
    grouped = Query("q", "When are refunds paid?", evidence=(copy("x", 1), copy("y", 1)))
    got = measured(grouped, X, Y)
    assert got["hit@k"] is True
    assert got["evidence_recall@k"] == 1.0
    assert got["unique_evidence@k"] == 1
    assert got["document_hit@k"] is True
    assert got["oracle_recall"] == 1.0
    assert got["mean_first_match_rank"] == 1.0
    assert got["first_match_rank"] == (1, 2)  # per span, as before
    assert got["chroma_recall"] == 1.0  # the copy retrieved, not both


def test_the_same_spans_without_a_group_keep_the_old_meaning() -> None:
    flat = Query("q", "When are refunds paid?", evidence=(copy("x", None), copy("y", None)))
    got = measured(flat, X, Y)
    assert got["hit@k"] is False
    assert got["evidence_recall@k"] == 0.5
    assert got["unique_evidence@k"] == 1
    assert got["document_hit@k"] is False
    assert got["mean_first_match_rank"] == 1.5
    assert got["chroma_recall"] == 0.5


def test_a_group_of_one_is_simply_a_group() -> None:
    one = Query("q", "When are refunds paid?", evidence=(copy("x", 7), copy("y", None)))
    got = measured(one, X, Y)
    assert (got["hit@k"], got["evidence_recall@k"], got["unique_evidence@k"]) == (False, 0.5, 1)


def test_causes_are_per_group_the_best_alternatives() -> None:
    assert best_cause([Cause.CUT, Cause.CROWDED]) is Cause.CROWDED
    assert best_cause([Cause.CUT, None]) is None
    assert best_cause([Cause.DISAPPEARED]) is Cause.DISAPPEARED
    grouped = Query("q", "When are refunds paid?", evidence=(copy("x", 1), copy("y", 1)))
    intro = Chunk("x-intro", "x", 0, 10)
    index = ChunkIndex.build([X, Y, intro])
    counter = TokenCounter(len, TEXTS)
    # k = 1: the intro at rank 1, y's chunk at rank 2 (crowded), x's not within depth.
    view = QueryView(grouped, [Ranked(intro, 0.9), Ranked(Y, 0.8)], index, SETTINGS, counter)
    assert view.own_causes == (Cause.DISAPPEARED, Cause.CROWDED)
    assert view.span_causes == (Cause.CROWDED, Cause.CROWDED)
    found = QueryView(grouped, [Ranked(Y, 0.9)], index, SETTINGS, counter)
    assert found.span_causes == (None, None)


def test_groups_partition_the_evidence_in_order() -> None:
    spans = (copy("x", 2), copy("y", None), copy("y", 2))
    # Query sorts evidence by (doc, start, end); the groups follow that order.
    assert evidence_groups(spans) == ((0, 2), (1,))


@pytest.mark.parametrize("group", [0, -1, True, "1", 1.5])
def test_a_group_that_is_not_a_positive_integer_is_refused(group: object) -> None:
    with pytest.raises(LabelError, match="group must be a positive integer"):
        replace(copy("x", None), group=group)  # type: ignore[arg-type]


def test_alternatives_whose_quotes_differ_are_refused() -> None:
    other = replace(Span.from_text(TEXTS["y"], "y", 0, 5), group=1)
    with pytest.raises(LabelError) as info:
        Query("q-0001", "When?", evidence=(copy("x", 1), other))
    assert info.value.key == "evidence[1].group"
    assert info.value.message == (
        "query q-0001: evidence[1] (y 0..5) is an alternative in group 1, but its quote "
        "'Other' does not match 'Refunds are paid within 14 days.' (x 17..49)"
    )

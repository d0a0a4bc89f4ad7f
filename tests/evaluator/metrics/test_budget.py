"""The context budget's one rule (§17): ranked chunks while they fit; the chunk that would
cross the budget is left out and the context ends there; a prefix's tokens count."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evaluator.chunk import Chunk
from evaluator.metrics import ChunkIndex, MetricSettings, QueryView, TokenCounter
from evaluator.metrics.curve import area
from evaluator.metrics.evidence import EvidenceRecall
from evaluator.metrics.view import in_budget
from evaluator.retrieval.base import Ranked
from labeler.core.errors import ConfigError
from labeler.core.values import Query, Span

TEXT = "aaaaaaaaaa" + "bbbbbbbbbb" + "cccccccccc" + "dd"
TEXTS = {"d.md": TEXT}


@pytest.mark.parametrize(
    ("tokens", "budget", "sent"),
    [
        ([3, 3, 3], 9, 3),  # exactly full: all fit
        ([3, 3, 3], 8, 2),  # the third would cross: left out
        ([3, 9, 1], 8, 1),  # the second crosses: the context ends, the small third waits
        ([9, 1], 8, 0),  # the first alone crosses: nothing is sent
        ([], 8, 0),
    ],
)
def test_in_budget_leaves_out_the_crossing_chunk_and_stops(
    tokens: list[int], budget: int, sent: int
) -> None:
    assert in_budget(tokens, budget) == sent


def _view(budget: int | None, prefix: str = "") -> QueryView:
    chunks = [Chunk("x", "d.md", 0, 10, prefix), Chunk("y", "d.md", 10, 20),
              Chunk("z", "d.md", 20, 32)]  # fmt: skip
    span = Span.from_text(TEXT, "d.md", 12, 18)
    query = Query("q-0001", "b?", evidence=(span,))
    ranked = [Ranked(c, 1.0) for c in chunks]
    settings = MetricSettings(k=1, depth=3, budget=budget)
    return QueryView(query, ranked, ChunkIndex.build(chunks), settings, TokenCounter(len, TEXTS))


def test_at_budget_the_fitting_chunks_stand_in_for_the_top_k() -> None:
    assert [c.id for c in _view(None).top] == ["x"]  # k = 1
    assert [c.id for c in _view(20).top] == ["x", "y"]  # 10 + 10 characters fit 20
    assert EvidenceRecall().value(_view(20)) == 1.0
    assert EvidenceRecall().value(_view(19)) == 0.0  # "y" would cross: left out
    assert _view(20).span_causes == (None,)
    assert _view(19).span_causes == ("crowded",)  # held by "y", ranked beyond the context


@pytest.mark.parametrize(("budget", "match"), [(20, "chunk"), (19, "chunk"), (None, "union"),
                                                (19, "union")])  # fmt: skip
def test_a_view_seen_at_another_budget_or_rule_is_the_view_made_there(
    budget: int | None, match: str
) -> None:
    seen_from = _view(None)
    assert seen_from.first_ranks == (2,)  # found before: kept where the rule stays
    seen = seen_from.seen(replace(seen_from.settings, budget=budget, match=match))
    made = _view(budget)
    made.settings = replace(made.settings, match=match)  # a fresh view under that rule
    made = QueryView(made.query, made.retrieved, made.index, made.settings, made.tokens)
    facts = ("cut", "top", "first_ranks", "matched_in_k", "span_causes", "coverage_in_k")
    assert [getattr(seen, f) for f in facts] == [getattr(made, f) for f in facts]
    assert seen_from.cut == 1 and seen_from.settings.budget is None  # the first one unchanged
    with pytest.raises(ValueError, match="another budget or match rule"):
        seen_from.seen(replace(seen_from.settings, k=2))


def test_a_prefix_counts_in_its_chunks_tokens() -> None:
    assert [c.id for c in _view(20, prefix="hdr").top] == ["x"]  # 13 + 10 > 20


@pytest.mark.parametrize("budget", [0, -3])
def test_metric_settings_refuse_a_budget_below_one(budget: int) -> None:
    with pytest.raises(ConfigError, match="budget must be at least 1") as info:
        MetricSettings(budget=budget)
    assert info.value.key == "settings.budget"


def test_the_area_is_the_mean_over_a_log2_ladder() -> None:
    assert area([128, 256, 512], [0.2, 0.4, 0.8]) == pytest.approx((0.3 + 0.6) / 2)
    assert area([128, 512], [0.0, 1.0]) == pytest.approx(0.5)
    assert area([256], [0.7]) == 0.7
    assert area([128, 256], [None, None]) is None

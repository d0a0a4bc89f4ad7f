"""Recall and hit at a ladder of context budgets (§17), and the area under the curve.

The area is taken over log2 of the budget (each doubling weighs the same) and divided by
the ladder's log2 span, so it reads as the mean recall across the ladder: 1.0 is every
span in every context, whatever the budget.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from evaluator.metrics.evaluate import reduce_all
from evaluator.metrics.evidence import EvidenceRecall, Hit
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.sent import Sending
from evaluator.metrics.settings import MetricSettings
from evaluator.metrics.view import QueryView
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query

CURVE_MEASURES = (EvidenceRecall(), Hit())
"""What the curve plots at every budget."""


def area(budgets: Sequence[int], values: Sequence[float | None]) -> float | None:
    """Trapezoid area over log2(budget), divided by the log2 span (one budget: its value)."""
    points = [(math.log2(b), v) for b, v in zip(budgets, values, strict=True) if v is not None]
    if not points:
        return None
    if len(points) == 1:
        return points[0][1]
    total = sum((x2 - x1) * (y1 + y2) / 2 for (x1, y1), (x2, y2) in itertools.pairwise(points))
    return total / (points[-1][0] - points[0][0])


def budget_curve(
    queries: Sequence[Query],
    ranked: Mapping[str, Sequence[Ranked]],
    index: ChunkIndex,
    params: MetricSettings,
    tokens: TokenCounter,
    ladder: Sequence[int],
    sending: Sending | None = None,
    views: Sequence[QueryView] | None = None,
) -> dict[str, Any]:
    """Recall and hit at each budget of `ladder`, and each one's area; with context units
    (§18) on what is sent. Each query's view is made once (`views`, when the caller has
    them) and seen at each budget: only how many ranks fit is found again."""
    if views is None:
        views = [QueryView(q, ranked[q.id], index, params, tokens, sending) for q in queries]
    recall: list[float | None] = []
    hit: list[float | None] = []
    for budget in ladder:
        at = [v.seen(replace(v.settings, budget=budget)) for v in views]
        per_query = {v.query.id: {m.name: m.value(v) for m in CURVE_MEASURES} for v in at}
        found = reduce_all(CURVE_MEASURES, per_query, per_query)
        recall.append(found[EvidenceRecall.name])
        hit.append(found[Hit.name])
    return {
        "budgets": list(ladder),
        "recall": recall,
        "hit": hit,
        "recall_area": area(ladder, recall),
        "hit_area": area(ladder, hit),
    }

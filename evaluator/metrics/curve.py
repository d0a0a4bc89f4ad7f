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

from evaluator.metrics.evaluate import evaluate
from evaluator.metrics.evidence import EvidenceRecall, Hit
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.sent import Sending
from evaluator.metrics.settings import MetricSettings
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
) -> dict[str, Any]:
    """Recall and hit at each budget of `ladder`, and each one's area; with context units
    (§18) on what is sent."""
    recall: list[float | None] = []
    hit: list[float | None] = []
    for budget in ladder:
        found = evaluate(queries, ranked, index, settings=replace(params, budget=budget),
                         texts=tokens.texts, count_tokens=tokens,
                         measures=CURVE_MEASURES, sending=sending).aggregates  # fmt: skip
        recall.append(found[EvidenceRecall.name])
        hit.append(found[Hit.name])
    return {
        "budgets": list(ladder),
        "recall": recall,
        "hit": hit,
        "recall_area": area(ladder, recall),
        "hit_area": area(ladder, hit),
    }

"""Spurious confidence on questions the corpus cannot answer (§7).

Abstention queries have no evidence, so recall says nothing about them; the similarity
of the best chunk shows whether a candidate makes the retriever more sure of nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evaluator.metrics.base import Measure, Value
from evaluator.metrics.shown import Better, Shown

if TYPE_CHECKING:
    from evaluator.metrics.view import QueryView


class AbstentionTop1(Measure):
    """abstention_top1 = score of the rank-1 chunk, for abstention queries only, when the
    retriever's scores are similarities (`MetricSettings.similarity`); else undefined."""

    name = "abstention_top1"
    parameters = ()
    shown = Shown("abstain top-1", "abst top-1", "{:.3f}", Better.LOWER, least=None)

    def value(self, view: QueryView) -> Value | None:
        if not view.query.abstain or not view.ranked or not view.settings.similarity:
            return None
        return view.ranked[0].score

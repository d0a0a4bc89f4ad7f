"""Where the evidence sits in the ranked list (§7): crowding versus disappearance.

A first match at rank 6 with k = 5 was crowded out; no match within `depth` means the
evidence disappeared from the candidate's ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from evaluator.metrics.base import Measure, Value
from evaluator.metrics.shown import Better, Shown

if TYPE_CHECKING:
    from evaluator.metrics.view import QueryView


class FirstMatchRank(Measure):
    """first_match_rank(e) = min {rank(r) ≤ depth : r matches e}, or None (per span).

    The per-query value lists one rank per span in evidence order. Its aggregate pools
    the spans: the mean rank over every span matched within depth.
    """

    name = "first_match_rank"
    parameters = ("depth", "coverage_threshold")
    shown = Shown("1st match ranks", "ranks", "{}", Better.LOWER)

    def value(self, view: QueryView) -> Value | None:
        return view.first_ranks if view.answerable else None

    def reduce(self, values: Sequence[Value]) -> float | None:
        ranks = [r for v in values if isinstance(v, tuple) for r in v if r is not None]
        return sum(ranks) / len(ranks) if ranks else None


class MeanFirstMatchRank(Measure):
    """mean_first_match_rank = mean over groups matched within depth of the group's best
    first_match_rank (a span without a group is a group of its own).

    None when no group of the query is matched within depth.
    """

    name = "mean_first_match_rank"
    parameters = ("depth", "coverage_threshold")
    shown = Shown("1st match rank", "1st rank", "{:.2f}", Better.LOWER)

    def value(self, view: QueryView) -> Value | None:
        if not view.answerable:
            return None
        ranks = [r for r in view.group_ranks if r is not None]
        return sum(ranks) / len(ranks) if ranks else None

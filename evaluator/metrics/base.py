"""The vocabulary every measure shares: per-query values and the Measure shape.

Measures are declarative (ir_measures, ranx): each names its parameters, states its formula
in its docstring and yields one value per query; aggregation is generic, so a new measure
gets means and breakdowns by slice, pattern and document without extra code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from evaluator.metrics.settings import MetricSettings
from evaluator.metrics.shown import Shown

if TYPE_CHECKING:
    from evaluator.metrics.view import QueryView

Value = bool | int | float | tuple[float | None, ...]
"""A per-query value (a per-span one is a tuple, in evidence order: ranks, coverage);
`None` beside it means "undefined for this query"."""


class Measure(ABC):
    """A named per-query measure; subclasses state their formula in their docstring."""

    name: ClassVar[str]
    """The measure's name as reports print it (`evidence_recall@k`)."""
    parameters: ClassVar[tuple[str, ...]] = ()
    """The settings it reads, so a report can print `k=5, coverage_threshold=0.8`."""
    shown: ClassVar[Shown]
    """How every view labels and prints it, and which way is better."""

    @abstractmethod
    def value(self, view: QueryView) -> Value | None:
        """This query's value, or None when the measure is undefined for it."""

    def reduce(self, values: Sequence[Value]) -> float | None:
        """Aggregate over the queries where the value is defined: their mean."""
        numbers = [float(v) for v in values if not isinstance(v, tuple)]
        return sum(numbers) / len(numbers) if numbers else None

    def describe(self, settings: MetricSettings) -> dict[str, object]:
        """Name and parameter values, for run manifests."""
        return {"name": self.name, **{p: getattr(settings, p) for p in self.parameters}}

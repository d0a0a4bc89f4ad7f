"""The vocabulary every measure shares: settings, ranked results, values, the Measure shape.

Measures are declarative (ir_measures, ranx): each names its parameters, states its formula
in its docstring and yields one value per query; aggregation is generic, so a new measure
gets means and breakdowns by slice, pattern and document without extra code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from evaluator.chunk import Chunk
from labeler.core.errors import ConfigError

if TYPE_CHECKING:
    from evaluator.metrics.view import QueryView

Value = bool | int | float | tuple[int | None, ...]
"""A per-query value; `None` beside it means "undefined for this query"."""


class HasMetricSettings(Protocol):
    """Anything carrying the frozen `[settings]` the measures read (§5)."""

    @property
    def k(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def coverage_threshold(self) -> float: ...
    @property
    def duplicate_threshold(self) -> float: ...


@dataclass(frozen=True)
class MetricSettings:
    """The parameters held fixed across candidates, declared before results are seen."""

    k: int = 5
    """Ranks that count as retrieved (the prompt's chunks)."""
    depth: int = 50
    """Ranks searched to tell crowding (rank > k) from disappearance (beyond depth)."""
    coverage_threshold: float = 0.8
    """Share of a span's characters a chunk must cover to match it."""
    duplicate_threshold: float = 0.7
    """Shared characters / shorter chunk length at which two chunks are duplicates."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ConfigError(f"k must be at least 1, got {self.k}", key="settings.k")
        if self.depth < self.k:
            raise ConfigError(
                f"depth must be at least k ({self.k}), got {self.depth}", key="settings.depth"
            )
        for key in ("coverage_threshold", "duplicate_threshold"):
            value = getattr(self, key)
            if not 0.0 < value <= 1.0:
                raise ConfigError(f"{key} must lie in (0, 1], got {value}", key=f"settings.{key}")

    @classmethod
    def of(cls, settings: HasMetricSettings) -> MetricSettings:
        """The metric parameters out of any settings object (the candidates file's, say)."""
        if isinstance(settings, MetricSettings):
            return settings
        return cls(
            settings.k, settings.depth, settings.coverage_threshold, settings.duplicate_threshold
        )


@dataclass(frozen=True)
class Ranked:
    """One retrieved chunk; its rank is its position in the list plus one."""

    chunk: Chunk
    """The chunk the retriever returned."""
    score: float
    """Similarity, higher is closer (retrievers turn distances into similarities)."""


class Measure(ABC):
    """A named per-query measure; subclasses state their formula in their docstring."""

    name: ClassVar[str]
    """The measure's name as reports print it (`evidence_recall@k`)."""
    parameters: ClassVar[tuple[str, ...]] = ()
    """The settings it reads, so a report can print `k=5, coverage_threshold=0.8`."""

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

"""The parameters every measure reads, held fixed across candidates (§5, §7).

They sit below both the Measure shape and the per-query view, which each need them,
so neither of those two imports the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from evaluator.candidates import MATCH_RULES
from labeler.core.errors import ConfigError


class HasMetricSettings(Protocol):
    """Anything carrying the frozen `[settings]` the measures read (§5); a `match` attribute
    is read when present (`chunk` otherwise)."""

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
    match: str = "chunk"
    """How a span is matched: by one chunk (`chunk`) or by the top chunks together (`union`)."""
    budget: int | None = None
    """At a context budget (§17): the ranked chunks that fit it stand in for the top k;
    None: the top k."""
    similarity: bool = field(default=True, compare=False)
    """Whether the retriever's scores are cosine similarities (chroma, exact; no rerank):
    abstention top-1 is a similarity and is taken only from those, so its column holds one
    scale (a rank-derived, BM25, fused or reranker score is not one). Not a setting the
    candidates share, so two candidates compare whatever their retrievers."""

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
        if self.budget is not None and self.budget < 1:
            raise ConfigError(f"budget must be at least 1, got {self.budget}",
                              key="settings.budget")  # fmt: skip
        if self.match not in MATCH_RULES:
            raise ConfigError(
                f"match must be one of {', '.join(MATCH_RULES)}, got {self.match!r}",
                key="settings.match",
            )

    @classmethod
    def of(cls, settings: HasMetricSettings) -> MetricSettings:
        """The metric parameters out of any settings object (the candidates file's, say)."""
        if isinstance(settings, MetricSettings):
            return settings
        return cls(
            settings.k, settings.depth, settings.coverage_threshold, settings.duplicate_threshold,
            getattr(settings, "match", "chunk"),  # optional: the seeds' rule by default
        )  # fmt: skip

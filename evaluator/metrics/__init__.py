"""Per-query retrieval measures and their generic aggregation (design §7).

One small module per family of measures, each measure a declarative class with its
formula and how it is shown; `registry` lists them (and the index figures) for every
view; `evaluate` runs them over a candidate and breaks every aggregate down; `compare`
pairs a candidate with the baseline, query by query.
"""

from evaluator.metrics.base import Measure, Value
from evaluator.metrics.evaluate import (
    DIMENSIONS,
    CandidateResult,
    Group,
    QueryFacets,
    evaluate,
)
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.registry import MEASURES, SHOWN, shown
from evaluator.metrics.settings import HasMetricSettings, MetricSettings
from evaluator.metrics.shown import Better, Shown
from evaluator.metrics.stats import IndexStats, chunk_count, index_stats, indexed_chars
from evaluator.metrics.view import QueryView, covers

__all__ = [
    "DIMENSIONS",
    "MEASURES",
    "SHOWN",
    "Better",
    "CandidateResult",
    "ChunkIndex",
    "Group",
    "HasMetricSettings",
    "IndexStats",
    "Measure",
    "MetricSettings",
    "QueryFacets",
    "QueryView",
    "Shown",
    "TokenCounter",
    "Value",
    "chunk_count",
    "covers",
    "evaluate",
    "index_stats",
    "indexed_chars",
    "shown",
]

"""Run the measures on one query, the way `evaluate` does, for per-measure tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evaluator.chunk import Chunk
from evaluator.metrics import MEASURES, ChunkIndex, MetricSettings, QueryView, TokenCounter
from evaluator.metrics.base import Value
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query
from tests.evaluator.metrics.fixtures import INDEX, SETTINGS, TEXTS


def view(
    query: Query,
    ranked: Sequence[Ranked],
    index: Sequence[Chunk] = INDEX,
    settings: MetricSettings = SETTINGS,
    count_tokens: Callable[[str], int] = len,
) -> QueryView:
    tokens = TokenCounter(count_tokens, TEXTS)
    return QueryView(query, ranked, ChunkIndex.build(index), settings, tokens)


def values(
    query: Query,
    ranked: Sequence[Ranked],
    index: Sequence[Chunk] = INDEX,
    settings: MetricSettings = SETTINGS,
) -> dict[str, Value | None]:
    """Every measure's value for `query`, by name."""
    v = view(query, ranked, index, settings)
    return {m.name: m.value(v) for m in MEASURES}

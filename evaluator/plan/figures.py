"""A candidate's chunks in numbers, and the context budget they imply (§17), from offsets and
token counts alone.

Counting reuses the run's `TokenCounter` (prefix and text counted apart, batched calls), so a
plan's token figures equal the ones `eval` writes into run.json.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from evaluator.chunk_table import ChunkTable
from evaluator.metrics.index import TokenCounter
from evaluator.metrics.stats import indexed_chars
from evaluator.plan.model import ChunkFigures
from labeler.core.text.ranges import covered


def chunk_figures(
    table: ChunkTable,
    texts: Mapping[str, str],
    count_many: Callable[[list[str]], list[int]],
    width: int | None,
) -> ChunkFigures:
    """Count, token lengths, characters embedded and covered, and the vectors' bytes."""
    counter = TokenCounter(lambda text: count_many([text])[0], texts)
    tokens = np.fromiter(counter.counts(table, count_many, keep=()), dtype=np.int64)
    some = tokens.size > 0
    return ChunkFigures(
        chunk_count=len(table),
        tokens_mean=float(tokens.mean()) if some else None,
        tokens_p50=float(np.percentile(tokens, 50)) if some else None,
        tokens_p95=float(np.percentile(tokens, 95)) if some else None,
        tokens_max=int(tokens.max()) if some else None,
        indexed_tokens=int(tokens.sum()),
        indexed_chars=indexed_chars(table),
        covered_chars=covered_chars(table),
        vector_bytes=None if width is None else len(table) * width * 4,
    )


def covered_chars(table: ChunkTable) -> int:
    """Characters inside some chunk, each counted once, over every document."""
    total = 0
    for doc in table.docs:
        r = table.doc_range(doc)
        starts, ends = table.starts[r.start : r.stop], table.ends[r.start : r.stop]
        total += covered(zip(starts.tolist(), ends.tolist(), strict=True))
    return total


def default_budget(k: int, baseline_mean_tokens: float | None) -> int:
    """The context budget declared from the chunking alone when `[settings] budget` is unset
    (§17): k × the baseline's mean chunk tokens (settings' tokenizer), rounded up to a whole
    token, so the baseline's own k chunks of mean size fit it."""
    return max(1, math.ceil(k * (baseline_mean_tokens or 0.0) - 1e-9))


def budget_chunks(budget: int, mean_tokens: float | None) -> int | None:
    """The budget's chunk count: budget / this candidate's mean chunk tokens, to the nearest
    whole chunk (half up); None with no chunk. The ceiling at budget gives each query this
    many chunks, so the baseline gets k and a candidate of chunks twice as long about k / 2."""
    if not mean_tokens:
        return None
    return math.floor(budget / mean_tokens + 0.5)

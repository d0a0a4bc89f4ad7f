"""A candidate's chunks in numbers, and the context budget they imply (§17), from offsets and
token counts alone.

Token counts come from `counting.TextTokens`: exact, each distinct text counted once.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from evaluator.chunk_table import ChunkTable
from evaluator.metrics.stats import indexed_chars
from evaluator.plan.model import ChunkFigures
from labeler.core.text.ranges import covered


def chunk_figures(
    table: ChunkTable, tokens: npt.NDArray[np.int64], width: int | None
) -> ChunkFigures:
    """Count, token lengths (`tokens`: each chunk's), characters embedded and covered, and
    the vectors' bytes."""
    some, ordered = tokens.size > 0, np.sort(tokens)
    return ChunkFigures(
        chunk_count=len(table),
        tokens_mean=float(tokens.mean()) if some else None,
        tokens_p50=percentile(ordered, 50) if some else None,
        tokens_p95=percentile(ordered, 95) if some else None,
        tokens_max=int(tokens.max()) if some else None,
        indexed_tokens=int(tokens.sum()),
        indexed_chars=indexed_chars(table),
        covered_chars=covered_chars(table),
        vector_bytes=None if width is None else len(table) * width * 4,
    )


def percentile(ordered: npt.NDArray[np.int64], q: float) -> float:
    """`np.percentile(values, q)` of sorted values, by its default (linear) method and its
    rounding, without the import of `numpy.ma` that `np.percentile` makes on first use."""
    at = (len(ordered) - 1) * (q / 100)
    lo = math.floor(at)
    a, b = float(ordered[lo]), float(ordered[min(lo + 1, len(ordered) - 1)])
    t, diff = at - lo, b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def covered_chars(table: ChunkTable) -> int:
    """Characters inside some chunk, each counted once, over every document."""
    total = 0
    for doc in table.docs:
        r = table.doc_range(doc)
        starts, ends = table.starts[r.start : r.stop], table.ends[r.start : r.stop]
        total += covered(zip(starts.tolist(), ends.tolist(), strict=True))
    return total

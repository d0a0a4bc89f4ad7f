"""A candidate's chunks in numbers, and the context budget they imply (§17), from offsets and
token counts alone.

Each distinct text is counted once over every candidate (candidates that share a cut share
their texts), prefix and text apart as the run's `TokenCounter` counts them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.metrics.stats import indexed_chars
from evaluator.plan.model import ChunkFigures
from labeler.core.text.ranges import covered


class TextTokens:
    """Token counts by text: each distinct text counted once over every candidate, in
    batched calls. A chunk's count is its text's plus its prefix's, as the run's
    `TokenCounter` counts it, so a plan's figures equal the ones `eval` writes."""

    def __init__(self, count_many: Callable[[list[str]], list[int]]) -> None:
        self._count_many = count_many
        self._known: dict[str, int] = {}

    def of(self, texts: Sequence[str]) -> list[int]:
        """Each text's tokens; only texts not seen before reach the tokenizer."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._known]
        if todo:
            self._known.update(zip(todo, self._count_many(todo), strict=True))
        return [self._known[t] for t in texts]

    def of_table(self, table: ChunkTable, texts: Mapping[str, str]) -> npt.NDArray[np.int64]:
        """Every chunk's tokens, prefix included, read from the table's columns."""
        docs = [table.docs[d] for d in table.doc_of.tolist()]
        spans = zip(docs, table.starts.tolist(), table.ends.tolist(), strict=True)
        bodies = np.asarray(self.of([texts[d][a:b] for d, a, b in spans]), dtype=np.int64)
        return bodies + self._prefixes(len(table), table.prefixes)

    def of_chunks(self, chunks: Sequence[Chunk], texts: Mapping[str, str]) -> npt.NDArray[np.int64]:
        """`of_table` for chunks in hand (the units a context candidate sends)."""
        bodies = np.asarray(self.of([texts[c.doc][c.start : c.end] for c in chunks]), np.int64)
        prefixes = {i: c.prefix for i, c in enumerate(chunks) if c.prefix}
        return bodies + self._prefixes(len(chunks), prefixes)

    def _prefixes(self, n: int, prefixes: Mapping[int, str]) -> npt.NDArray[np.int64]:
        out = np.zeros(n, dtype=np.int64)
        if prefixes:
            out[list(prefixes)] = self.of(list(prefixes.values()))
        return out


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

"""Per-candidate size figures (§7): how big an index a chunking makes.

They read only chunk offsets and token counts, so they sit beside the per-query measures
and share their token cache.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.metrics.index import TokenCounter, as_counter


@dataclass(frozen=True)
class IndexStats:
    """Size of one candidate's index."""

    chunk_count: int
    """Number of chunks."""
    indexed_chars: int
    """Σ (len(prefix) + end - start): characters embedded, overlaps counted per chunk."""
    indexed_tokens: int
    """Σ tokens per chunk, prefix included."""
    mean_chunk_tokens: float | None
    """indexed_tokens / chunk_count; None for an empty index."""
    max_chunk_tokens: int | None
    """The largest chunk in tokens; None for an empty index."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def chunk_count(chunks: Sequence[Chunk]) -> int:
    return len(chunks)


def indexed_chars(chunks: Sequence[Chunk]) -> int:
    """Characters embedded: each chunk's range plus its prefix (a table's from its columns)."""
    if isinstance(chunks, ChunkTable):
        return chunks.chars() + sum(len(p) for p in chunks.prefixes.values())
    return sum(c.length + len(c.prefix) for c in chunks)


def index_stats(
    chunks: Sequence[Chunk],
    texts: Mapping[str, str],
    count_tokens: Callable[[str], int] | TokenCounter,
) -> IndexStats:
    tokens = as_counter(count_tokens, texts)
    counts = [tokens(c) for c in chunks]
    return IndexStats(
        chunk_count=chunk_count(chunks),
        indexed_chars=indexed_chars(chunks),
        indexed_tokens=sum(counts),
        mean_chunk_tokens=sum(counts) / len(counts) if counts else None,
        max_chunk_tokens=max(counts) if counts else None,
    )


def counted_stats(
    chunks: Sequence[Chunk],
    counter: TokenCounter,
    count_many: Callable[[list[str]], list[int]],
    keep: Container[str],
) -> IndexStats:
    """`index_stats` over a whole index, one batch in memory: each chunk counted once,
    its count kept only when its id is in `keep` (the chunks the per-query measures
    count again)."""
    total = top = n = 0
    for tokens in counter.counts(chunks, count_many, keep):
        total, top, n = total + tokens, max(top, tokens), n + 1
    return IndexStats(
        chunk_count=chunk_count(chunks),
        indexed_chars=indexed_chars(chunks),
        indexed_tokens=total,
        mean_chunk_tokens=total / n if n else None,
        max_chunk_tokens=top if n else None,
    )

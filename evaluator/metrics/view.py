"""One query seen through one candidate: the shared facts every measure reads.

Several measures need the same matching work (first-match ranks, Chroma intersections);
the view computes each fact once, lazily, so measures stay one-liners over it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from evaluator.chunk import Chunk
from evaluator.metrics.base import MetricSettings, Ranked
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.overlap import Overlap, omega_overlap, retrieved_overlap
from labeler.core.values import Query, Span


def covers(chunk: Chunk, span: Span, threshold: float) -> bool:
    """§7 match: same document, and the chunk contains the span or covers ≥ threshold of it."""
    if chunk.doc != span.doc:
        return False
    if chunk.start <= span.start and span.end <= chunk.end:
        return True
    shared = min(chunk.end, span.end) - max(chunk.start, span.start)
    # A division, not shared >= threshold * length: k/n rounds to the same double as
    # the decimal threshold, so "exactly 0.8" matches as declared.
    return shared > 0 and shared / (span.end - span.start) >= threshold


def shared_chars(a: Chunk, b: Chunk) -> int:
    """Characters two chunks of one document have in common."""
    if a.doc != b.doc:
        return 0
    return max(0, min(a.end, b.end) - max(a.start, b.start))


class QueryView:
    """A query, its ranked list to depth, and the candidate's whole index."""

    def __init__(
        self,
        query: Query,
        ranked: Sequence[Ranked],
        index: ChunkIndex,
        settings: MetricSettings,
        tokens: TokenCounter,
    ) -> None:
        self.query = query
        self.settings = settings
        self.index = index
        self.tokens = tokens
        self.ranked = tuple(ranked[: settings.depth])
        self.top = tuple(r.chunk for r in self.ranked[: settings.k])
        """The top k chunks."""

    @property
    def spans(self) -> tuple[Span, ...]:
        return self.query.evidence

    @property
    def answerable(self) -> bool:
        return self.query.answerable

    @cached_property
    def first_ranks(self) -> tuple[int | None, ...]:
        """Per span, the 1-based rank of the first matching chunk within depth, else None."""
        threshold = self.settings.coverage_threshold
        by_doc: dict[str, list[tuple[int, Chunk]]] = {}
        for rank, item in enumerate(self.ranked, start=1):
            by_doc.setdefault(item.chunk.doc, []).append((rank, item.chunk))
        return tuple(
            next((r for r, c in by_doc.get(s.doc, ()) if covers(c, s, threshold)), None)
            for s in self.spans
        )

    @cached_property
    def matched_in_k(self) -> tuple[bool, ...]:
        """Per span, whether a top-k chunk matches it."""
        k = self.settings.k
        return tuple(r is not None and r <= k for r in self.first_ranks)

    @cached_property
    def matchable(self) -> tuple[bool, ...]:
        """Per span, whether any chunk in the whole index matches it (the oracle)."""
        threshold = self.settings.coverage_threshold
        return tuple(
            any(covers(c, s, threshold) for c in self.index.touching(s.doc, s.start, s.end))
            for s in self.spans
        )

    @cached_property
    def retrieved_overlap(self) -> Overlap:
        """Chroma's intersections of the evidence with the top k chunks."""
        return retrieved_overlap(self.spans, self.top)

    @cached_property
    def omega_overlap(self) -> Overlap:
        """Chroma's intersections of the evidence with every chunk that touches it."""
        touching = {c for s in self.spans for c in self.index.touching(s.doc, s.start, s.end)}
        return omega_overlap(self.spans, sorted(touching, key=lambda c: (c.doc, c.start, c.end)))

"""One query seen through one candidate: the shared facts every measure reads.

Several measures need the same matching work (first-match ranks, Chroma intersections);
the view computes each fact once, lazily, so measures stay one-liners over it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

from evaluator.chunk import Chunk
from evaluator.metrics.causes import Cause, span_cause
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.overlap import Overlap, omega_overlap, retrieved_overlap
from evaluator.metrics.settings import MetricSettings
from evaluator.retrieval.base import Ranked
from labeler.core.ranges import Range, covered, intersect
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


def coverage(chunks: Sequence[Chunk], span: Span) -> float:
    """Share of the span's characters covered by the union of `chunks` (same document)."""
    parts = [
        found
        for c in chunks
        if c.doc == span.doc and (found := intersect((c.start, c.end), (span.start, span.end)))
    ]
    return covered(parts) / (span.end - span.start)


def in_budget(tokens: Iterable[int], budget: int) -> int:
    """How many ranked chunks a context of `budget` tokens holds (§17): chunks in rank order
    while their running total fits; the chunk that would cross the budget is left out, and
    the context ends there (no later, smaller chunk jumps the queue)."""
    total = n = 0
    for n, count in enumerate(tokens, start=1):
        total += count
        if total > budget:
            return n - 1
    return n


T = TypeVar("T")


class _lazy(Generic[T]):
    """cached_property without the lock Python 3.11 takes on every first read.

    A non-data descriptor: the first read stores the value in the instance, which then
    shadows the descriptor. A view lives on one thread, so no lock is needed.
    """

    def __init__(self, compute: Callable[[QueryView], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __get__(self, view: QueryView, owner: type[QueryView] | None = None) -> T:
        value = self.compute(view)
        view.__dict__[self.name] = value
        return value


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
        self.top = tuple(r.chunk for r in self.ranked[: self._cut()])
        """The chunks sent: the top k, or at a budget those that fit (`in_budget`)."""

    def _cut(self) -> int:
        """How many ranked chunks are sent: k, or those within the budget."""
        budget = self.settings.budget
        if budget is None:
            return self.settings.k
        return in_budget((self.tokens(r.chunk) for r in self.ranked), budget)

    @property
    def spans(self) -> tuple[Span, ...]:
        return self.query.evidence

    @property
    def answerable(self) -> bool:
        return self.query.answerable

    @_lazy
    def first_ranks(self) -> tuple[int | None, ...]:
        """Per span, the 1-based rank of the first match within depth, else None. With
        `match = "union"`, the first rank at which the chunks so far cover it together."""
        if self.settings.match == "union":
            return tuple(self._union_rank(s) for s in self.spans)
        return self.chunk_ranks

    @_lazy
    def chunk_ranks(self) -> tuple[int | None, ...]:
        """Per span, the 1-based rank of the first single chunk matching it within depth."""
        threshold, spans = self.settings.coverage_threshold, self.spans
        ranks: list[int | None] = [None] * len(spans)
        waiting: dict[str, list[int]] = {}
        for i, s in enumerate(spans):
            waiting.setdefault(s.doc, []).append(i)
        for rank, item in enumerate(self.ranked, start=1):
            # One dict probe per ranked chunk: most lie in documents without evidence.
            for i in list(waiting.get(item.chunk.doc, ())):
                if covers(item.chunk, spans[i], threshold):
                    ranks[i] = rank
                    waiting[item.chunk.doc].remove(i)
        return tuple(ranks)

    def _union_rank(self, span: Span) -> int | None:
        need, parts = self.settings.coverage_threshold, list[Range]()
        for rank, item in enumerate(self.ranked, start=1):
            c = item.chunk
            if c.doc == span.doc and (found := intersect((c.start, c.end), (span.start, span.end))):
                parts.append(found)
                if covered(parts) / (span.end - span.start) >= need:
                    return rank
        return None

    @_lazy
    def matched_in_k(self) -> tuple[bool, ...]:
        """Per span, whether a top-k chunk matches it."""
        k = len(self.top)
        return tuple(r is not None and r <= k for r in self.first_ranks)

    @_lazy
    def held(self) -> tuple[bool, ...]:
        """Per span, whether some single chunk in the whole index matches it."""
        threshold = self.settings.coverage_threshold
        return tuple(
            any(covers(c, s, threshold) for c in self.index.touching(s.doc, s.start, s.end))
            for s in self.spans
        )

    @_lazy
    def matchable(self) -> tuple[bool, ...]:
        """Per span, whether the whole index can match it (the oracle), by the match rule."""
        if self.settings.match == "chunk":
            return self.held
        threshold = self.settings.coverage_threshold
        return tuple(
            coverage(self.index.touching(s.doc, s.start, s.end), s) >= threshold for s in self.spans
        )

    @_lazy
    def coverage_in_k(self) -> tuple[float, ...]:
        """Per span, the share of its characters the top k chunks cover together."""
        return tuple(coverage(self.top, s) for s in self.spans)

    @_lazy
    def span_causes(self) -> tuple[Cause | None, ...]:
        """Per span, why it was missed (None: matched within k); see `causes.span_cause`."""
        k, threshold, match = len(self.top), self.settings.coverage_threshold, self.settings.match
        return tuple(
            span_cause(rank, cover, held, k=k, threshold=threshold, match=match)
            for rank, cover, held in zip(
                self.chunk_ranks, self.coverage_in_k, self.held, strict=True
            )
        )

    @_lazy
    def retrieved_overlap(self) -> Overlap:
        """Chroma's intersections of the evidence with the top k chunks."""
        return retrieved_overlap(self.spans, self.top)

    @_lazy
    def omega_overlap(self) -> Overlap:
        """Chroma's intersections of the evidence with every chunk that touches it."""
        # Keyed by identity: the index hands out the same objects, and hashing is slower.
        touching = {
            id(c): c for s in self.spans for c in self.index.touching(s.doc, s.start, s.end)
        }
        return omega_overlap(self.spans, list(touching.values()))

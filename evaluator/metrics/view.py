"""One query seen through one candidate: the shared facts every measure reads.

Several measures need the same matching work (first-match ranks, Chroma intersections);
the view computes each fact once, lazily, so measures stay one-liners over it.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

from evaluator.chunk import Chunk
from evaluator.metrics.causes import Cause, best_cause, span_cause
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.overlap import Overlap, omega_overlap, retrieved_overlap
from evaluator.metrics.sent import Sending
from evaluator.metrics.settings import MetricSettings
from evaluator.retrieval.base import Ranked
from labeler.core.text.ranges import Range, covered, intersect
from labeler.core.values import Query, Span, evidence_groups


def covers(chunk: Chunk, span: Span, threshold: float) -> bool:
    """§7 match: same document, and the chunk contains the span or covers ≥ threshold of it.

    The chunk's text is its range and its prefix's source ranges (§17): a table header
    carried as prefix is evidence the chunk holds.
    """
    if chunk.doc != span.doc:
        return False
    if any(a <= span.start and span.end <= b for a, b in chunk.ranges):
        return True
    shared = _shared(chunk.ranges, span)
    # A division, not shared >= threshold * length: k/n rounds to the same double as
    # the decimal threshold, so "exactly 0.8" matches as declared.
    return shared > 0 and shared / (span.end - span.start) >= threshold


def _parts(ranges: Sequence[Range], span: Span) -> list[Range]:
    return [found for r in ranges if (found := intersect(r, (span.start, span.end)))]


def _shared(ranges: Sequence[Range], span: Span) -> int:
    """Characters of the span that the ranges cover, each once."""
    if len(ranges) == 1:  # the common case, without the union
        return max(0, min(ranges[0][1], span.end) - max(ranges[0][0], span.start))
    return covered(_parts(ranges, span))


def shared_chars(a: Chunk, b: Chunk) -> int:
    """Characters two chunks of one document have in common."""
    if a.doc != b.doc:
        return 0
    return max(0, min(a.end, b.end) - max(a.start, b.start))


def coverage(chunks: Sequence[Chunk], span: Span) -> float:
    """Share of the span's characters covered by the union of `chunks` (same document),
    prefix sources included."""
    parts = [p for c in chunks if c.doc == span.doc for p in _parts(c.ranges, span)]
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
        sending: Sending | None = None,
    ) -> None:
        self.query = query
        self.settings = settings
        self.index = index
        """The candidate's index; with context units, every unit that can be sent."""
        self.tokens = tokens
        self.retrieved = tuple(ranked[: settings.depth])
        """The retrieval units, ranked to depth."""
        self.ranked = self.retrieved if sending is None else tuple(sending.ranking(self.retrieved))
        """Per rank, what is sent for that rank's chunk (§18); the chunk itself by default."""
        self.sending = sending
        """What is sent for a retrieved chunk (§18); None: the chunk itself."""
        self._sent: list[tuple[Chunk, ...]] = []
        """`sent_at(n)` at index n, as far as asked: shared with the views `seen` makes."""
        self._prefixes = None if sending is None else sending.prefixes(self.retrieved)
        """What is sent for each next n, found in one walk of the ranking."""
        self.cut = self._cut()
        """How many ranks are sent: k, or at a budget those whose context fits (`in_budget`)."""
        self.top = self.sent_at(self.cut)
        """What is sent: the chunks, or their parents or merged windows, of the first `cut`."""

    def sent_at(self, n: int) -> tuple[Chunk, ...]:
        """What is sent for the top `n` retrieved chunks (any n up to depth), each unit
        once, in the order of the best rank it holds: what a prompt of n chunks receives,
        and what tokens, matching and coverage are counted on."""
        if self.sending is None:
            return tuple(r.chunk for r in self.retrieved[:n])
        while self._prefixes is not None and len(self._sent) <= n:
            found = next(self._prefixes, None)
            if found is None:  # past the ranking: what the whole of it sends
                return self._sent[-1]
            self._sent.append(found)
        return self._sent[n]

    def seen(self, settings: MetricSettings) -> QueryView:
        """The same query and ranking under another budget or match rule (the curve's ladder,
        the other rule, §17): the facts those leave as they are are this view's, not found
        again. k, depth and threshold stay."""
        if (settings.k, settings.depth, settings.coverage_threshold) != (
            self.settings.k, self.settings.depth, self.settings.coverage_threshold
        ):  # fmt: skip
            raise ValueError("a view is seen again only at another budget or match rule")
        kept = _BUDGET_FREE if settings.match == self.settings.match else _RULE_FREE
        for name in kept:  # found here once, so that every view seen from this one has them
            getattr(self, name)
        view = copy.copy(self)
        view.settings = settings
        for name in [n for n in vars(view) if n in _LAZY and n not in kept]:
            del view.__dict__[name]
        view.cut = view._cut()
        view.top = view.sent_at(view.cut)
        return view

    def _cut(self) -> int:
        """How many ranks are sent: k, or those within the budget, counted on what is sent
        (a parent once however many of its children rank; windows merged)."""
        budget = self.settings.budget
        if budget is None:
            return self.settings.k
        if self.sending is None:
            return in_budget((self.tokens(r.chunk) for r in self.retrieved), budget)
        fits = 0
        for n in range(1, len(self.retrieved) + 1):
            if sum(map(self.tokens, self.sent_at(n))) > budget:
                break
            fits = n
        return fits

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
            if c.doc == span.doc and (found := _parts(c.ranges, span)):
                parts.extend(found)
                if covered(parts) / (span.end - span.start) >= need:
                    return rank
        return None

    @_lazy
    def matched_in_k(self) -> tuple[bool, ...]:
        """Per span, whether a top-k chunk matches it."""
        k = self.cut
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
    def own_causes(self) -> tuple[Cause | None, ...]:
        """Per span, why it was missed (None: matched within k); see `causes.span_cause`."""
        k, threshold, match = self.cut, self.settings.coverage_threshold, self.settings.match
        signal = self.signal
        return tuple(
            span_cause(rank, cover, held, k=k, threshold=threshold, match=match, signal=signal)
            for rank, cover, held in zip(
                self.chunk_ranks, self.coverage_in_k, self.held, strict=True
            )
        )

    @property
    def signal(self) -> bool:
        """False when every top-k chunk scored 0: the retriever found no query word (§17)."""
        return not self.ranked or any(r.score != 0.0 for r in self.ranked[: self.cut])

    @_lazy
    def span_causes(self) -> tuple[Cause | None, ...]:
        """Per span, its group's cause (§18): None when any alternative matched, else the
        best alternative's (a span without a group: its own)."""
        out: list[Cause | None] = list(self.own_causes)
        for g in self.groups:
            cause = best_cause(self.own_causes[i] for i in g)
            for i in g:
                out[i] = cause
        return tuple(out)

    # -- groups of alternatives (§18): each measure over groups ---------------------------

    @_lazy
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The evidence's groups as span indices; without `group`, one span each."""
        return evidence_groups(self.spans)

    def _any(self, per_span: tuple[bool, ...]) -> tuple[bool, ...]:
        return tuple(any(per_span[i] for i in g) for g in self.groups)

    @_lazy
    def group_matched_in_k(self) -> tuple[bool, ...]:
        """Per group, whether a top-k chunk matches some alternative."""
        return self._any(self.matched_in_k)

    @_lazy
    def group_matchable(self) -> tuple[bool, ...]:
        """Per group, whether the whole index can match some alternative."""
        return self._any(self.matchable)

    @_lazy
    def group_ranks(self) -> tuple[int | None, ...]:
        """Per group, the best (lowest) first-match rank among its alternatives."""
        ranks = self.first_ranks
        return tuple(min((r for i in g if (r := ranks[i]) is not None), default=None)
                     for g in self.groups)  # fmt: skip

    @_lazy
    def chosen(self) -> tuple[Span, ...]:
        """Per group, the alternative the top k cover most (the first on a tie): the
        evidence Chroma's retrieved measures see."""
        cover = self.coverage_in_k
        return tuple(self.spans[max(g, key=lambda i: (cover[i], -i))] for g in self.groups)

    @_lazy
    def retrieved_overlap(self) -> Overlap:
        """Chroma's intersections of the evidence (one alternative per group) with the top k."""
        spans = self.chosen if len(self.groups) < len(self.spans) else self.spans
        return retrieved_overlap(spans, self.top)

    @_lazy
    def omega_overlap(self) -> Overlap:
        """Chroma's intersections of the evidence with every chunk that touches it; with
        alternatives, of the alternatives that give the best precision Ω."""
        if len(self.groups) == len(self.spans):
            return self._omega(self.spans)
        choices = itertools.product(*([self.spans[i] for i in g] for g in self.groups))
        return max((self._omega(c) for c in itertools.islice(choices, MAX_CHOICES)),
                   key=_omega_share)  # fmt: skip

    def _omega(self, spans: Sequence[Span]) -> Overlap:
        # Keyed by identity: the index hands out the same objects, and hashing is slower.
        touching = {id(c): c for s in spans for c in self.index.touching(s.doc, s.start, s.end)}
        return omega_overlap(spans, list(touching.values()))


_LAZY = frozenset(n for n, v in vars(QueryView).items() if isinstance(v, _lazy))
"""The facts a view finds when first asked, kept in the view."""
_BUDGET_FREE = frozenset({"first_ranks", "chunk_ranks", "held", "matchable", "groups",
                          "group_matchable", "group_ranks"})  # fmt: skip
"""Those that read neither `cut` nor `top`: a view at another budget keeps them."""
_RULE_FREE = frozenset({"chunk_ranks", "held", "groups"})
"""Those the match rule does not change either: a view under the other rule keeps them."""

MAX_CHOICES = 64
"""Alternatives' combinations tried for precision Ω (the first ones, in evidence order)."""


def _omega_share(o: Overlap) -> float:
    return o.intersected / o.chunks if o.touched else 0.0

"""Re-anchoring candidates for stale spans (design §8): proposals only, never moves.

A well-known web-annotation client weighs quote, prefix, suffix and position 50:20:20:2 and
silently applies its best guess. We compute the same parts, show them, and let a person pick:
nothing here moves a span; the caller builds the accepted one with `Span.moved`.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rapidfuzz.distance import Levenshtein

from labeler.core.anchoring.edges import end_edge, start_edge
from labeler.core.anchoring.search import (
    FLOOR,
    MIN_FUZZY,
    SAME_PLACE,
    DocumentPair,
    exact_occurrences,
    fuzzy_regions,
    overlap,
    refine,
)
from labeler.core.values import Span, context_of

__all__ = [
    "FLOOR",
    "WEIGHTS",
    "AnchorCandidate",
    "Proposal",
    "ScoreParts",
    "propose",
    "propose_many",
]

WEIGHTS = (50.0, 20.0, 20.0, 2.0)
"""Weights of quote, prefix, suffix and distance similarity: the 50:20:20:2 of design §8.
The quote dominates; context breaks ties between duplicates; position barely counts, so a
paragraph inserted above a span costs it almost nothing."""


@dataclass(frozen=True)
class ScoreParts:
    """The four similarities a candidate is scored on, each in [0, 1]."""

    quote: float
    """Normalized Levenshtein similarity of the old quote and the candidate's text."""
    prefix: float
    """Similarity of the old prefix and the 32 code points before the candidate, read from
    the end (both cut to the shorter length, aligned at the candidate's start)."""
    suffix: float
    """Similarity of the old suffix and the 32 code points after, read from the start."""
    distance: float
    """1 - |start - expected start| / len(new text); the old start mapped through a diff."""

    def __post_init__(self) -> None:
        for name in ("quote", "prefix", "suffix", "distance"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} similarity {getattr(self, name)} is outside [0, 1]")

    @property
    def total(self) -> float:
        """The weighted mean of the parts (WEIGHTS), in [0, 1]."""
        parts = (self.quote, self.prefix, self.suffix, self.distance)
        return sum(w * p for w, p in zip(WEIGHTS, parts, strict=True)) / sum(WEIGHTS)


@dataclass(frozen=True)
class AnchorCandidate:
    """A place in the new text where a stale span might belong."""

    start: int
    """First code point of the candidate in the new canonical text."""
    end: int
    """One past its last code point."""
    quote: str
    """The new text between start and end."""
    kind: Literal["exact", "fuzzy"]
    """exact: the old quote verbatim; fuzzy: an aligned, edited version of it."""
    score: float
    """parts.total, kept as a field so callers can sort and print it."""
    parts: ScoreParts
    """The similarities the score is made of, shown to the person deciding."""

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end or len(self.quote) != self.end - self.start:
            raise ValueError(f"bad candidate {self.start}..{self.end} for {self.quote!r}")


@dataclass(frozen=True)
class Proposal:
    """What the review screen offers for one stale span; a person decides."""

    span: Span
    """The stale span, unchanged."""
    candidates: tuple[AnchorCandidate, ...]
    """Best first (score, then position); empty when orphaned."""
    orphaned: bool
    """True when the document is gone or nothing reaches the floor."""
    reason: str
    """One line saying why, for the list and the screen."""


def propose(span: Span, old_text: str | None, new_text: str | None, *, limit: int = 5) -> Proposal:
    """Candidates for `span`, made on `old_text`, in `new_text` (None: document removed)."""
    if new_text is None:
        return Proposal(span, (), True, "document removed")
    return _propose(span, _pair(old_text, new_text), limit)


def propose_many(
    items: Iterable[tuple[Span, str | None, str | None]], *, limit: int = 5
) -> list[Proposal]:
    """`propose` for many spans, building each document pair's diff only once."""
    pairs: dict[tuple[str | None, str], DocumentPair] = {}
    out: list[Proposal] = []
    for span, old_text, new_text in items:
        if new_text is None:
            out.append(Proposal(span, (), True, "document removed"))
            continue
        pair = pairs.get((old_text, new_text))
        if pair is None:
            pair = pairs[(old_text, new_text)] = DocumentPair(old_text, new_text)
        out.append(_propose(span, pair, limit))
    return out


@lru_cache(maxsize=8)
def _pair(old_text: str | None, new_text: str) -> DocumentPair:
    # The review screen asks span by span; consecutive spans share a document.
    return DocumentPair(old_text, new_text)


def _propose(span: Span, pair: DocumentPair, limit: int) -> Proposal:
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    expected = pair.map(span.start)
    scored = [_candidate(span, pair.new, s, e, expected) for s, e in _places(span, pair)]
    viable = [c for c in scored if c.parts.quote >= FLOOR]
    ranked = _distinct(sorted(viable, key=lambda c: (-c.score, c.start, c.end)))
    exact = sum(c.kind == "exact" for c in scored)
    return Proposal(span, tuple(ranked[:limit]), not ranked, _reason(exact, limit, len(ranked)))


def _places(span: Span, pair: DocumentPair) -> set[tuple[int, int]]:
    """Every exact occurrence of the quote, then refined fuzzy matches unless one of those
    occurrences still has the old context: that one outranks any edited match in practice,
    and the fuzzy search is the expensive part."""
    text, quote = pair.new, span.quote
    places = {(s, s + len(quote)) for s in exact_occurrences(quote, text, span.prefix, span.suffix)}
    if len(quote) < MIN_FUZZY or any(
        context_of(text, s, e) == (span.prefix, span.suffix) for s, e in places
    ):
        return places
    mapped = (pair.map(span.start), pair.map(span.end - 1) + 1)
    edges = (start_edge(quote, span.prefix), end_edge(quote, span.suffix))
    for rough in fuzzy_regions(quote, pair, mapped, taken=places):
        found = refine(quote, pair, rough, edges)
        if found is not None:
            places.add(found[:2])
    return places


def _candidate(span: Span, text: str, start: int, end: int, expected: int) -> AnchorCandidate:
    found = text[start:end]
    prefix, suffix = context_of(text, start, end)
    parts = ScoreParts(
        quote=Levenshtein.normalized_similarity(span.quote, found),
        prefix=_context_similarity(span.prefix, prefix, from_end=True),
        suffix=_context_similarity(span.suffix, suffix, from_end=False),
        distance=max(0.0, 1.0 - abs(start - expected) / max(len(text), 1)),
    )
    kind: Literal["exact", "fuzzy"] = "exact" if found == span.quote else "fuzzy"
    return AnchorCandidate(start, end, found, kind, parts.total, parts)


def _context_similarity(old: str, new: str, *, from_end: bool) -> float:
    """Similarity of two contexts compared from the side touching the quote.

    Both are cut to the shorter length first, so a span near a document edge is judged on
    the context it has; an edge on one side only (one context empty) counts as a mismatch.
    """
    n = min(len(old), len(new))
    if n == 0:
        return 1.0 if len(old) == len(new) else 0.0
    if from_end:
        return float(Levenshtein.normalized_similarity(old[-n:], new[-n:]))
    return float(Levenshtein.normalized_similarity(old[:n], new[:n]))


def _distinct(ranked: list[AnchorCandidate]) -> list[AnchorCandidate]:
    """Drop candidates that overlap a better one heavily (the same place found twice).

    Kept places are held sorted by start, so each candidate is compared only with those
    that can reach it: a quote found thousands of times stays linear, not quadratic."""
    widest = max((c.end - c.start for c in ranked), default=0)
    kept: list[AnchorCandidate] = []
    starts: list[tuple[int, int]] = []
    for c in ranked:
        lo, hi = bisect_left(starts, (c.start - widest, 0)), bisect_left(starts, (c.end, 0))
        if all(overlap((c.start, c.end), place) < SAME_PLACE for place in starts[lo:hi]):
            kept.append(c)
            insort(starts, (c.start, c.end))
    return kept


def _reason(exact: int, limit: int, found: int) -> str:
    if not found:
        return f"no candidate with quote similarity ≥ {FLOOR}; proposed as orphaned"
    shown = f" (top {limit} of {found} shown)" if found > limit else ""
    if exact > 1:
        return f"quote occurs {exact} times; pick the right one{shown}"
    if exact == 1:
        return f"quote found once; its position or context changed{shown}"
    return f"quote was edited; closest matches{shown}"

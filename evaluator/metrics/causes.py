"""Why a span was missed (§7): split, cut, crowded or disappeared — one cause per span.

The cause is decided once, in the metrics wing, from facts the view has already computed
(first-match rank, union coverage of the top k, whether any chunk holds the span), and
recorded in run.json; every view (show, triage, report, junit, summary) reads it, so no
two of them can state different causes.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Cause(StrEnum):
    """Why a span (or a lost query) missed in a candidate."""

    SPLIT = "split"
    """No single chunk matches, but the top k cover it together: retrieved, in pieces."""
    CUT = "cut"
    """No chunk anywhere holds the span, and the top k do not cover it: a boundary cut it."""
    CROWDED = "crowded"
    """A chunk holds it, ranked below k (within depth)."""
    DISAPPEARED = "disappeared"
    """A chunk holds it, but nothing matches within depth."""

    @property
    def words(self) -> str:
        """The cause in a reader's words, as every view states it."""
        return _CAUSE_WORDS[self]


_CAUSE_WORDS = {
    Cause.SPLIT: "every part was retrieved, split across chunks",
    Cause.CUT: "no chunk holds the evidence and the top k do not cover it",
    Cause.CROWDED: "a chunk holds it, but ranks below k",
    Cause.DISAPPEARED: "no matching chunk within depth",
}

DEPTH_ORDER = (Cause.CUT, Cause.DISAPPEARED, Cause.CROWDED, Cause.SPLIT)
"""Deepest first: a lost query takes the deepest cause among its spans (a cut span
explains more than a crowded one; a split span, all retrieved, explains least)."""


def span_cause(
    rank: int | None, coverage: float, held: bool, *, k: int, threshold: float
) -> Cause | None:
    """None for a span matched within k; otherwise its cause, split checked first."""
    if rank is not None and rank <= k:
        return None
    if coverage >= threshold:
        return Cause.SPLIT
    if rank is not None:
        return Cause.CROWDED
    return Cause.DISAPPEARED if held else Cause.CUT


def query_cause(causes: Iterable[Cause | None]) -> Cause | None:
    """The deepest cause among a query's spans; None when every span matched."""
    found = {c for c in causes if c is not None}
    return next((c for c in DEPTH_ORDER if c in found), None)

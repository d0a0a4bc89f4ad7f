"""Why a span was missed (§7): split, cut, crowded, disappeared or no signal — one cause per
span, with one definition per match rule.

The cause is decided once, in the metrics wing, from facts the view has already computed
(the first single chunk's rank, union coverage of the top k, whether any chunk holds the
span), and recorded in run.json under both rules; every view (show, triage, report, junit,
summary) reads it and words it through `said`, so no two of them can state different causes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import StrEnum


class Cause(StrEnum):
    """Why a span (or a lost query) missed in a candidate."""

    SPLIT = "split"
    """`chunk` rule only: no top-k chunk matches alone, but the top k cover it together (at
    least the threshold). Under `union` such a span is matched, so never a cause."""
    CUT = "cut"
    """Both rules: no chunk anywhere holds the span, and the top k do not cover it."""
    CROWDED = "crowded"
    """Both rules: one chunk holds it, ranked below k (within depth); under `union` the top k
    do not cover it either."""
    DISAPPEARED = "disappeared"
    """Both rules: a chunk in the index holds it, but none within depth; under `union` the
    top k do not cover it either."""
    NO_SIGNAL = "no signal"
    """Both rules, in place of crowded or disappeared: a chunk holds it, but every top-k chunk
    scored 0 (the lexical scorer found no query word), so the ranking was only the tie-break
    (§17)."""

    @property
    def words(self) -> str:
        """The cause in a reader's words, without the span's own figures (the legend)."""
        return _CAUSE_WORDS[self]

    def said(self, coverage: float | None = None) -> str:
        """The cause in words for one span: `split` states its coverage when below 100 %."""
        if self is Cause.SPLIT and coverage is not None and coverage < 1.0:
            return f"retrieved in pieces: the top k cover {percent(coverage)} of it together"
        return self.words


_CAUSE_WORDS = {
    Cause.SPLIT: "every part was retrieved, split across chunks",
    Cause.CUT: "no chunk holds the evidence and the top k do not cover it",
    Cause.CROWDED: "a chunk holds it, but ranks below k",
    Cause.DISAPPEARED: "no chunk that holds it ranks within depth",
    Cause.NO_SIGNAL: "a chunk holds it, but every top-k chunk scored 0: no query word found",
}

DEFINITIONS = {
    "chunk": {
        Cause.SPLIT: "no top-k chunk holds it alone, the top k cover it together",
        Cause.CUT: "no chunk holds it and the top k do not cover it",
        Cause.CROWDED: "a chunk holds it, ranked below k",
        Cause.DISAPPEARED: "a chunk holds it, none within depth",
        Cause.NO_SIGNAL: "a chunk holds it, every top-k chunk scored 0",
    },
    "union": {
        Cause.CUT: "no chunk holds it and the top k do not cover it together",
        Cause.CROWDED: "a chunk holds it, ranked below k; the top k do not cover it",
        Cause.DISAPPEARED: "a chunk holds it, none within depth; the top k do not cover it",
        Cause.NO_SIGNAL: "a chunk holds it, every top-k chunk scored 0; the top k do not cover it",
    },
}
"""Each cause's definition under each rule (§7); under `union` a span the top k cover
together is matched, so `split` is no cause there."""


def legend(match: str) -> str:
    """The causes under `match`, on one line, as the terminal and report.md print them."""
    return " · ".join(f"{cause}: {words}" for cause, words in DEFINITIONS[match].items())


RULES = ("chunk", "union")
"""The match rules, in the order reports show them (§7)."""

DEPTH_ORDER = (Cause.CUT, Cause.NO_SIGNAL, Cause.DISAPPEARED, Cause.CROWDED, Cause.SPLIT)
"""Deepest first: a lost query takes the deepest cause among its spans (a cut span
explains more than a crowded one; a retriever with no signal explains a ranking miss before
its rank does; a split span, all retrieved, explains least)."""


def other_rule(match: str) -> str:
    """The rule a run also computes beside the declared one."""
    return "union" if match == "chunk" else "chunk"


def percent(share: float) -> str:
    """A share as a whole percent, never rounded up to 100 % (`93%`)."""
    if share >= 1.0:
        return "100%"
    return f"{min(99, math.floor(round(share * 100, 6)))}%"


def span_cause(
    rank: int | None,
    coverage: float,
    held: bool,
    *,
    k: int,
    threshold: float,
    match: str = "chunk",
    signal: bool = True,
) -> Cause | None:
    """None for a span matched within k under `match`; otherwise its cause.

    `rank` is the first *single* chunk's rank within depth (None: none within depth),
    `coverage` the share the top k cover together, `held` whether any chunk of the index
    holds the span. Under `chunk` a span matches when a top-k chunk does (split checked
    first); under `union` when the top k together cover the threshold, so `split` never
    explains a miss and `crowded` needs one chunk that holds it. Without `signal` (every
    top-k chunk scored 0) a span some chunk holds is `no signal`, not crowded or disappeared.
    """
    if match == "union":
        if coverage >= threshold:
            return None
    else:
        if rank is not None and rank <= k:
            return None
        if coverage >= threshold:
            return Cause.SPLIT
    if not signal and (rank is not None or held):
        return Cause.NO_SIGNAL
    if rank is not None:
        return Cause.CROWDED
    return Cause.DISAPPEARED if held else Cause.CUT


def query_cause(causes: Iterable[Cause | None]) -> Cause | None:
    """The deepest cause among a query's spans; None when every span matched."""
    found = {c for c in causes if c is not None}
    return next((c for c in DEPTH_ORDER if c in found), None)


def best_cause(causes: Iterable[Cause | None]) -> Cause | None:
    """A group's cause: None when any alternative matched, else the shallowest among them
    (the best alternative's: the one that came closest to being retrieved)."""
    found = list(causes)
    if any(c is None for c in found):
        return None
    return next((c for c in reversed(DEPTH_ORDER) if c in found), None)

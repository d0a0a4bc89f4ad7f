"""Hand-placed documents, chunks and queries whose metric values are worked out by hand.

Document `a` is 100 code points, `b` is 60; `len` serves as the tokenizer, so a chunk's
prompt tokens are its length. Offsets are chosen so every boundary case has one query.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluator.chunk import Chunk
from evaluator.metrics import MetricSettings
from evaluator.retrieval.base import Ranked
from labeler.core.values import Boundary, Query, Span

TEXTS = {"a": "".join(chr(97 + i % 26) for i in range(100)), "b": "0123456789" * 6}
SETTINGS = MetricSettings(k=2, depth=4, coverage_threshold=0.8, duplicate_threshold=0.7)


def chunk(doc: str, start: int, end: int, prefix: str = "") -> Chunk:
    return Chunk(f"{doc}{start}-{end}", doc, start, end, prefix)


C1, C2, C3, C4, C5 = (
    chunk("a", s, e) for s, e in [(0, 20), (20, 40), (30, 50), (50, 80), (80, 100)]
)
D1, D2 = chunk("b", 0, 30), chunk("b", 30, 60)
INDEX = (C1, C2, C3, C4, C5, D1, D2)
"""The candidate: `a` cut at 20/40/50/80 with C2 and C3 overlapping by 10; `b` cut at 30."""


def span(doc: str, start: int, end: int) -> Span:
    return Span.from_text(TEXTS[doc], doc, start, end)


def query(
    qid: str,
    *spans: Span,
    slices: tuple[str, ...] = (),
    boundary: Boundary = Boundary.OTHER,
    abstain: bool = False,
) -> Query:
    return Query(qid, f"question {qid}", abstain, boundary, slices, evidence=spans)


def ranked(*chunks: Chunk, top1: float = 0.9) -> list[Ranked]:
    """Scores fall by 0.1 a rank from `top1`."""
    return [Ranked(c, round(top1 - 0.1 * i, 6)) for i, c in enumerate(chunks)]


Q1 = query("q1", span("a", 22, 32), slices=("critical",), boundary=Boundary.CONTROL)
"""One span inside C2; C3 covers only 2 of its 10 characters."""
Q2 = query(
    "q2",
    span("a", 52, 62),
    span("a", 85, 95),
    slices=("critical", "tables"),
    boundary=Boundary.LIST_INTRO_ITEM,
)
"""Two spans, inside C4 and C5."""
Q3 = query("q3", span("a", 10, 18), span("b", 25, 35), boundary=Boundary.CROSS_REFERENCE)
"""Across documents; the `b` span is cut 5/5 by the boundary at 30."""
Q4 = query("q4", slices=("critical",), abstain=True)
"""An abstention query."""

RANKED: dict[str, Sequence[Ranked]] = {
    "q1": ranked(C3, C1, C2, C4),  # C2 at rank 3: crowded out of k = 2
    "q2": ranked(C4, D1, C5, C1),  # second span at rank 3
    "q3": ranked(D1, C1, D2, C2),
    "q4": ranked(C1, C2, C3, C4, top1=0.42),
}

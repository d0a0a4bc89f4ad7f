"""Chroma's per-question loops, generalised to evidence in several documents.

`retrieved_overlap` is `_scores_from_dataset_and_retrievals` and `omega_overlap` is
`_full_precision_score` from chunking_evaluation's base_evaluation.py, step for step, run
once per evidence document (the reference has one document per question) and summed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

from evaluator.chunk import Chunk
from labeler.core.text.ranges import Range, difference, intersect, total, union
from labeler.core.values import Span


@dataclass(frozen=True)
class Overlap:
    """The character counts the Chroma metrics divide."""

    intersected: int
    """|I|: the union of every chunk ∩ span intersection (closed), per document."""
    evidence: int
    """Σ|e| over the spans (a sum)."""
    uncovered: int
    """Σ over spans of the characters no considered chunk intersects."""
    chunks: int
    """Retrieved: Σ|r| over all top-k chunks. Omega: |∪ touching chunks ∪ uncovered|."""
    touched: bool
    """Whether any chunk met any span, even only at an edge."""


def _by_doc(spans: Iterable[Span]) -> list[tuple[str, list[Range]]]:
    ordered = sorted(spans, key=lambda s: s.doc)
    return [
        (doc, [(s.start, s.end) for s in group])
        for doc, group in groupby(ordered, key=lambda s: s.doc)
    ]


def _walk(
    refs: list[Range], chunks: Iterable[Chunk]
) -> tuple[list[Range], list[Range], list[Range]]:
    """The reference loop: intersections, touching chunk ranges, evidence left unused."""
    unused = list(refs)
    intersections: list[Range] = []
    hit_chunks: list[Range] = []
    for chunk in chunks:
        met = False
        for ref in refs:
            found = intersect((chunk.start, chunk.end), ref)
            if found is not None:
                met = True
                unused = difference(unused, found)
                intersections.append(found)
        if met:
            hit_chunks.append((chunk.start, chunk.end))
    return intersections, hit_chunks, unused


def retrieved_overlap(spans: Sequence[Span], top: Sequence[Chunk]) -> Overlap:
    """Counts for chroma_recall, chroma_precision and chroma_iou over the top k."""
    intersected = uncovered = 0
    touched = False
    for doc, refs in _by_doc(spans):
        intersections, _, unused = _walk(refs, (c for c in top if c.doc == doc))
        intersected += total(union(intersections))
        uncovered += total(unused)
        touched = touched or bool(intersections)
    evidence = total((s.start, s.end) for s in spans)
    return Overlap(intersected, evidence, uncovered, total((c.start, c.end) for c in top), touched)


def omega_overlap(spans: Sequence[Span], touching: Sequence[Chunk]) -> Overlap:
    """Counts for chroma_precision_omega over every chunk that meets the evidence."""
    intersected = uncovered = denominator = 0
    touched = False
    for doc, refs in _by_doc(spans):
        intersections, hit_chunks, unused = _walk(refs, (c for c in touching if c.doc == doc))
        intersected += total(union(intersections))
        uncovered += total(unused)
        denominator += total(union(hit_chunks + unused))
        touched = touched or bool(intersections)
    evidence = total((s.start, s.end) for s in spans)
    return Overlap(intersected, evidence, uncovered, denominator, touched)

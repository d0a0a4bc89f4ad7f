"""Spans of one query that nest in or overlap each other: flagged where they are made (§3).

Exact duplicates are refused by the store; overlaps are allowed (two readings of one
passage) but are rarely meant, so the app and imports say so at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from labeler.core.values import Query, Span


def overlapping_pairs(spans: Iterable[Span]) -> list[tuple[Span, Span]]:
    """Pairs of spans in one document sharing at least one code point, in order."""
    out: list[tuple[Span, Span]] = []
    ordered = sorted(spans, key=lambda s: (s.doc, s.start, s.end))
    for a, b in combinations(ordered, 2):
        if a.doc == b.doc and b.start < a.end:
            out.append((a, b))
    return out


def relation(a: Span, b: Span) -> str:
    """`nested in` or `overlaps` (a before b in document order)."""
    inner = (a.start <= b.start and b.end <= a.end) or (b.start <= a.start and a.end <= b.end)
    return "nested in" if inner else "overlaps"


def describe(query_id: str, new: Span, others: Iterable[Span]) -> str | None:
    """One line saying how `new` meets the query's other spans, or None when it does not."""
    found = [s for s in others if s.doc == new.doc and s.start < new.end and new.start < s.end]
    if not found:
        return None
    where = ", ".join(f"{s.start}..{s.end}" for s in found[:3])
    kind = relation(new, found[0])
    return f"{query_id}: {new.doc} {new.start}..{new.end} {kind} another span ({where})"


def duplicated(q: Query) -> Sequence[Span]:
    """Spans of `q` that repeat an earlier one's document and offsets (in one version)."""
    seen: set[tuple[str, int, int]] = set()
    dups: list[Span] = []
    for s in q.evidence:
        key = (s.doc, s.start, s.end)
        if key in seen:
            dups.append(s)
        seen.add(key)
    return dups


def import_warnings(queries: Iterable[Query]) -> list[str]:
    """One warning per query whose spans nest or overlap."""
    out = []
    for q in queries:
        pairs = overlapping_pairs(q.evidence)
        if pairs:
            a, b = pairs[0]
            out.append(
                f"{q.id}: {len(pairs)} pair(s) of spans nest or overlap "
                f"({a.doc} {a.start}..{a.end} and {b.start}..{b.end})"
            )
    return out

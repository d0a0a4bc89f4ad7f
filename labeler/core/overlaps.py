"""Spans of one query that nest in or overlap each other: flagged where they are made (§3).

Exact duplicates are refused by the store; overlaps are allowed (two readings of one
passage) but are rarely meant, so the app and imports say so at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
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


def _kept_group(parts: list[Span], lo: int, hi: int) -> int | None:
    """The group a join keeps (§18): the one its grouped parts share, when one of them
    already spans the whole join (its quote, so its alternatives', is unchanged); an
    ungrouped part inside it (the same fact drawn alone) does not undo the group."""
    numbers = {p.group for p in parts if p.group is not None}
    if len(numbers) != 1:
        return None
    (number,) = numbers
    return (
        number if any(p.group == number and (p.start, p.end) == (lo, hi) for p in parts) else None
    )


def joined(spans: Iterable[Span], text_of: Callable[[Span], str]) -> tuple[list[Span], list[str]]:
    """Spans of one document that share a code point joined into one (a merge, §3), each
    join said in a line; `text_of` gives the canonical text a span was drawn on. A joined
    span keeps the annotator and time of its widest part."""
    out: list[list[Span]] = []
    for s in sorted(spans, key=lambda s: (s.doc, s.start, -s.end)):
        group = out[-1] if out else None
        if group and group[0].doc == s.doc and s.start < max(g.end for g in group):
            group.append(s)
        else:
            out.append([s])
    result, said = [], []
    for group in out:
        if len(group) == 1:
            result.append(group[0])
            continue
        lo, hi = group[0].start, max(g.end for g in group)
        widest = max(group, key=lambda g: g.end - g.start)
        made = Span.from_text(text_of(widest), widest.doc, lo, hi, doc_hash=widest.doc_hash,
                              annotator=widest.annotator, created=widest.created)  # fmt: skip
        result.append(replace(made, group=_kept_group(group, lo, hi)))
        parts = " and ".join(f"{g.start}..{g.end}" for g in group)
        said.append(f"{widest.doc}: {parts} joined into {lo}..{hi}")
    return result, said

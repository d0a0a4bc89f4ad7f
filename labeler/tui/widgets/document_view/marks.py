"""Highlights over one document: which spans to draw, in which role, found by bisect.

The view asks for the marks on each visible row; a sorted start list and a running
maximum of ends answer that in O(log n + hits), so thousands of spans cost nothing per
frame. Roles are decided here (current query, other queries, or per annotator when
comparing two annotators' versions), not in the widget, and so is whether a span is one
of several alternatives (§18), which the view draws over its role.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Iterable, Sequence
from enum import StrEnum
from itertools import accumulate
from operator import itemgetter
from typing import NamedTuple

from labeler.core.values import Span, evidence_groups


class Role(StrEnum):
    """How a span is drawn."""

    CURRENT = "current"
    OTHER = "other"
    ANNOTATOR_A = "annotator-a"
    ANNOTATOR_B = "annotator-b"


CURRENT_ROLES = frozenset({Role.CURRENT, Role.ANNOTATOR_A, Role.ANNOTATOR_B})
"""Roles that belong to the current query (those spans can be edited)."""


class Mark(NamedTuple):
    """A span as the document view draws it (a tuple: thousands are built per reload)."""

    start: int
    """First offset."""
    end: int
    """One past the last offset."""
    role: Role
    """How to draw it."""
    span_id: int | None
    """The store's span id."""
    query_id: str
    """The query it is evidence for."""
    annotator: str
    """Who drew it."""
    alternative: bool = False
    """It shares its group with another span of its query: either will do (§18)."""

    @property
    def editable(self) -> bool:
        return self.role in CURRENT_ROLES


def annotators_of(spans: Iterable[Span], me: str) -> list[str]:
    """The annotators of some spans, `me` first, then by name."""
    names = {s.annotator for s in spans}
    return sorted(names, key=lambda n: (n != me, n))


def alternatives_in(evidence: Sequence[Span]) -> frozenset[Span]:
    """The spans of one query's `evidence` that share their group with another (§18),
    wherever the other sits: a group of one is not drawn as an alternative."""
    groups = (g for g in evidence_groups(tuple(evidence)) if len(g) > 1)
    return frozenset(evidence[i] for g in groups for i in g)


def marks_for(
    doc: str,
    spans: Iterable[tuple[str, Span]],
    current: str | None,
    *,
    by_annotator: bool = False,
    me: str = "",
    alternatives: Collection[Span] = frozenset(),
) -> list[Mark]:
    """The marks for `doc`: the current query's spans, then everyone else's.

    With `by_annotator`, the current query's spans take the role of their annotator:
    `me` (or the first name) as A, every other annotator as B, so two versions of one
    query show side by side in the same text. The current query's spans that are in
    `alternatives` (see `alternatives_in`) are marked as such, whatever their role.
    """
    here = [(q, s) for q, s in spans if s.doc == doc]
    order = annotators_of((s for q, s in here if q == current), me)
    marks: list[Mark] = []
    for query_id, s in here:
        role = Role.OTHER
        if query_id == current:
            role = Role.CURRENT
            if by_annotator:
                role = Role.ANNOTATOR_A if order.index(s.annotator) == 0 else Role.ANNOTATOR_B
        alternative = query_id == current and s in alternatives
        marks.append(Mark(s.start, s.end, role, s.id, query_id, s.annotator, alternative))
    return marks


class MarkIndex:
    """Marks of one document, sorted, answering "which overlap [lo, hi)" by bisect."""

    def __init__(self, marks: Iterable[Mark] = ()) -> None:
        self.marks: Sequence[Mark] = sorted(marks, key=itemgetter(0, 1))  # start, end
        """Every mark, by start then end."""
        self._starts = [m.start for m in self.marks]
        # reach[i] = the furthest end among marks[0..i]; it only grows, so it bisects.
        self._reach = list(accumulate((m.end for m in self.marks), max))

    def __len__(self) -> int:
        return len(self.marks)

    def overlapping(self, lo: int, hi: int) -> list[Mark]:
        """Marks that share at least one offset with [lo, hi) (or touch `lo` when empty)."""
        first = bisect_left(self._reach, lo + 1)
        last = bisect_left(self._starts, max(hi, lo + 1))
        return [m for m in self.marks[first:last] if m.end > lo]

    def editable_at(self, offset: int) -> Mark | None:
        """The innermost current-query mark holding `offset` (or ending right at it)."""
        here = [m for m in self.overlapping(max(0, offset - 1), offset + 1) if m.editable]
        inside = [m for m in here if m.start <= offset < m.end] or [
            m for m in here if m.end == offset
        ]
        return min(inside, key=lambda m: m.end - m.start, default=None)

    def next_start(self, offset: int, *, editable: bool = True) -> int | None:
        """The first start after `offset` among (editable) marks."""
        i = bisect_left(self._starts, offset + 1)
        return next((m.start for m in self.marks[i:] if m.editable or not editable), None)

    def previous_start(self, offset: int, *, editable: bool = True) -> int | None:
        """The last start before `offset` among (editable) marks."""
        i = bisect_left(self._starts, offset)
        before = (m.start for m in reversed(self.marks[:i]) if m.editable or not editable)
        return next(before, None)

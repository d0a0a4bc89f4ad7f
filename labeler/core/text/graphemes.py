"""Grapheme cluster boundaries (design §13): where a span may start and end.

A span edge between a letter and its combining mark, inside a ZWJ emoji sequence or
between the two halves of a flag cuts what a reader sees as one character. Every path
that makes a span asks `check_edges` (or snaps with `snap`); the Unicode rules (UAX #29
extended clusters) come from the `regex` package's `\\X`. A line feed always ends a
cluster, so only the line around an offset is segmented, and a line's boundaries are
cached for the many spans one import draws on one document.
"""

from __future__ import annotations

import bisect
from functools import lru_cache

import regex

from labeler.core.errors import LabelError

_CLUSTER = regex.compile(r"\X")


@lru_cache(maxsize=256)
def _line_boundaries(line: str) -> tuple[int, ...]:
    """Offsets inside `line` (0 and len(line) included) where a cluster starts or ends."""
    return (0, *(m.end() for m in _CLUSTER.finditer(line)))


def _line_around(text: str, offset: int) -> tuple[int, str]:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, text[start : len(text) if end < 0 else end]


def is_boundary(text: str, offset: int) -> bool:
    """True when a span may start or end at `offset` of `text`."""
    if offset <= 0 or offset >= len(text):
        return True
    before, after = text[offset - 1], text[offset]
    if before.isascii() and after.isascii():
        return not (before == "\r" and after == "\n")  # every other ASCII pair breaks
    start, line = _line_around(text, offset)
    if offset == start or offset == start + len(line):
        return before != "\r"  # a line's edges, but never inside CR LF
    bounds = _line_boundaries(line)
    i = bisect.bisect_left(bounds, offset - start)
    return i < len(bounds) and bounds[i] == offset - start


def snap(text: str, offset: int, *, forward: bool) -> int:
    """The nearest boundary at or after (`forward`) or at or before `offset`."""
    if is_boundary(text, offset):
        return offset
    if text[offset - 1] == "\r" and text[offset] == "\n":
        return offset + 1 if forward else offset - 1
    start, line = _line_around(text, offset)
    bounds = _line_boundaries(line)
    i = bisect.bisect_left(bounds, offset - start)
    return start + (bounds[i] if forward else bounds[i - 1])


def whole_clusters(text: str, start: int, end: int) -> tuple[int, int]:
    """`start..end` widened to whole grapheme clusters (a selection made by hand)."""
    return snap(text, start, forward=False), snap(text, end, forward=True)


def check_edges(text: str, doc: str, start: int, end: int) -> None:
    """Refuse a span `start..end` of `doc` whose edges cut a grapheme cluster."""
    for key, offset in (("start", start), ("end", end)):
        if not is_boundary(text, offset):
            left, right = snap(text, offset, forward=False), snap(text, offset, forward=True)
            cluster = text[left:right]
            raise LabelError(
                f"span {start}..{end} of {doc}: its {key} cuts the character {cluster!r} "
                f"({' '.join(f'U+{ord(c):04X}' for c in cluster)}) at {offset}; "
                f"a span edge must lie at {left} or {right}",
                key=key,
                offset=offset,
            )

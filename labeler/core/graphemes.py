"""Grapheme cluster boundaries (Unicode UAX #29) in canonical text, for every path that
turns a rough range into a span: a quote never ends between a letter and its combining
mark, nor inside a ZWJ emoji sequence or a flag. `regex`'s `\\X` does the segmentation;
each question looks only at a small window around the offset, so it is cheap on 2 MB.
"""

from __future__ import annotations

import regex

_CLUSTER = regex.compile(r"\X", regex.DOTALL)
"""One extended grapheme cluster."""
WINDOW = 64
"""Code points looked at on each side; longer clusters than this do not occur in text."""


def _cluster_at(text: str, offset: int) -> tuple[int, int]:
    """The cluster that holds text[offset] (offset < len(text))."""
    for m in _CLUSTER.finditer(text, max(0, offset - WINDOW), min(len(text), offset + WINDOW)):
        if m.start() <= offset < m.end():
            return m.start(), m.end()
    return offset, offset + 1


def floor(text: str, offset: int) -> int:
    """The nearest cluster boundary at or before `offset`."""
    if offset <= 0 or offset >= len(text):
        return max(0, min(offset, len(text)))
    return _cluster_at(text, offset)[0]


def ceil(text: str, offset: int) -> int:
    """The nearest cluster boundary at or after `offset`."""
    if offset <= 0 or offset >= len(text):
        return max(0, min(offset, len(text)))
    start, end = _cluster_at(text, offset)
    return offset if start == offset else end


def widen(text: str, start: int, end: int) -> tuple[int, int]:
    """The smallest range of whole clusters that holds text[start:end]."""
    return floor(text, start), ceil(text, end)

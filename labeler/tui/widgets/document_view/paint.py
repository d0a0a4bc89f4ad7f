"""One row of the document as rich segments: text cut where a highlight starts or stops.

Layers (spans, find matches, selection, cursor) are painted bottom first; a piece of
text gets every layer that covers it. On rows with wide or combined characters a style
may only change where a grapheme starts, so a highlight never splits an emoji: one that
starts or ends inside a grapheme takes the whole of it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import pairwise

from rich.segment import Segment
from rich.style import Style

from labeler.tui.widgets.document_view.layout import glyphs, is_plain

Layer = tuple[int, int, Style]
"""A highlight: start offset, end offset, style."""


def row_segments(
    text: str, start: int, end: int, layers: list[Layer], base: Style
) -> list[Segment]:
    """The segments drawing text[start:end] with `layers` over `base`."""
    points = {start, end}
    for a, b, _ in layers:
        points.update(p for p in (a, b) if start < p < end)
    plain = is_plain(text, start, end)
    cells = [] if plain else glyphs(text, start, end)
    if not plain:  # an edge inside a grapheme moves to the grapheme's start
        starts = [g.start for g in cells]
        points = {starts[bisect_right(starts, p) - 1] if p < end else p for p in points}
    segments: list[Segment] = []
    for a, b in pairwise(sorted(points)):
        style = base
        for la, lb, layer in layers:
            if la < b and lb > a:  # edges are cut points, so overlap means cover
                style += layer
        drawn = text[a:b] if plain else "".join(g.text for g in cells if a <= g.start < b)
        segments.append(Segment(drawn, style))
    return segments


def ranges_in(
    ranges: list[tuple[int, int]], ends: list[int], lo: int, hi: int
) -> list[tuple[int, int]]:
    """The non-overlapping, sorted `ranges` (with their `ends`) that meet [lo, hi)."""
    first = bisect_right(ends, lo)
    last = bisect_left(ranges, (hi, hi))
    return ranges[first:last]

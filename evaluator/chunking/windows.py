"""Fixed windows of `size` units moved by `size - overlap` (the chars, words, tokens splitters).

A window runs from the start of its first unit to the start of the first unit after it,
so the whitespace between units belongs to the window before it; the first window starts
at 0 and the last ends at the document's end, so every character is covered.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaluator.chunking.pieces import Piece
from evaluator.chunking.units import Units


def window_pieces(units: Units, text_len: int, size: int, overlap: int) -> list[Piece]:
    """Windows until one reaches the last unit; consecutive ones share `overlap` units."""
    if text_len == 0:
        return []
    n = len(units)
    if n == 0:
        # Whitespace only: no unit to count, but the characters still need a chunk.
        return [Piece(0, text_len)]
    step = size - overlap
    pieces: list[Piece] = []
    first = 0
    while True:
        pieces.append(window_at(units, text_len, size, first))
        if first + size >= n:
            return pieces
        first += step


def window_at(units: Units, text_len: int, size: int, first: int) -> Piece:
    """The window whose first unit is `first`."""
    after = first + size
    start = 0 if first == 0 else units.start(first)
    end = units.start(after) if after < len(units) else text_len
    return Piece(start, end)


def windows_near(
    units: Units, text_len: int, size: int, overlap: int, lo: int, hi: int
) -> Iterator[Piece]:
    """Of `window_pieces`' windows, those whose units meet units [lo, hi), in order: the
    only ones a range there can lie in (a plan asks this for many overlaps, without cutting
    it all, and stops at the first that holds the range)."""
    if not len(units):
        yield from window_pieces(units, text_len, size, overlap)
        return
    step, n = size - overlap, len(units)
    i = max(0, (lo - size) // step)
    while i * step <= hi and (i == 0 or (i - 1) * step + size < n):
        yield window_at(units, text_len, size, i * step)
        i += 1

"""Fixed windows of `size` units moved by `size - overlap` (the chars, words, tokens splitters).

A window runs from the start of its first unit to the start of the first unit after it,
so the whitespace between units belongs to the window before it; the first window starts
at 0 and the last ends at the document's end, so every character is covered.
"""

from __future__ import annotations

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
        after = first + size
        start = 0 if first == 0 else units.start(first)
        end = units.start(after) if after < n else text_len
        pieces.append(Piece(start, end))
        if after >= n:
            return pieces
        first += step

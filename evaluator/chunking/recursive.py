"""The recursive and sentences splitters: cut at the coarsest separator that fits, then pack.

A separator stays with the text before it, so the pieces of a range tile it exactly and
their offsets come from the separator matches themselves. Ranges still too big go down
one separator level (blank line, line, sentence end, space) and finally to single units.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from evaluator.chunking.packing import Atom, Packing, pack
from evaluator.chunking.pieces import Piece
from evaluator.chunking.units import Units

_PARAGRAPH = re.compile(r"\n\s*\n")
_LINE = re.compile(r"\n")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*\s+")
_SPACE = re.compile(r"\s+")
LEVELS = 5
"""Blank line, line, sentence end, space, then single units."""
SENTENCE_LEVEL = 2


def sentence_ends(text: str, start: int, end: int) -> Iterator[int]:
    """Ends of sentences in [start, end): after the end mark and the whitespace after it.

    A lowercase letter after the mark ("e.g. this") does not start a sentence.
    """
    for m in _SENTENCE_END.finditer(text, start, end):
        after = m.end()
        if after < end and not text[after].islower():
            yield after


def _cuts(text: str, start: int, end: int, level: int) -> list[int]:
    if level == SENTENCE_LEVEL:
        return list(sentence_ends(text, start, end))
    pattern = (_PARAGRAPH, _LINE, _SENTENCE_END, _SPACE)[level]
    return [m.end() for m in pattern.finditer(text, start, end) if m.end() < end]


def _content(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the non-whitespace text of [start, end) begins and ends."""
    inner = text[start:end]
    left = len(inner) - len(inner.lstrip())
    if left == len(inner):
        return end, end
    return start + left, start + len(inner.rstrip())


def split_range(
    text: str, start: int, end: int, units: Units, limit: int, level: int = 0, deepest: int = LEVELS
) -> list[Atom]:
    """Atoms tiling [start, end), each within `limit` units.

    Separator levels run from `level` up to (not including) `deepest`; a range that no
    allowed level can cut stays whole. Only with every level allowed does it end in
    single units, so nothing is bigger than the limit unless one unit is.
    """
    size = units.count(start, end)
    if size <= limit:
        return [Atom(start, end, size)]
    # Whitespace at either end stays with the text next to it instead of being an atom.
    content_start, content_end = _content(text, start, end)
    for depth in range(level, min(deepest, LEVELS - 1)):
        cuts = [c for c in _cuts(text, start, content_end, depth) if c > content_start]
        if cuts:
            bounds = [start, *cuts, end]
            return [
                atom
                for a, b in pairwise(bounds)
                for atom in split_range(text, a, b, units, limit, depth + 1, deepest)
            ]
    return _single_units(start, end, units) if deepest >= LEVELS else [Atom(start, end, size)]


def _single_units(start: int, end: int, units: Units) -> list[Atom]:
    """The hard cut: one atom per unit (leading whitespace rides with the first)."""
    bounds = [start, *(p for p in units.starts_in(start + 1, end)), end]
    return [Atom(a, b, units.count(a, b)) for a, b in pairwise(bounds) if b > a]


def recursive_pieces(text: str, units: Units, size: int, overlap: int) -> list[Piece]:
    if not text:
        return []
    return pack(split_range(text, 0, len(text), units, size), Packing(size, overlap))


def sentence_atoms(text: str, units: Units) -> list[Atom]:
    """Whole sentences tiling the text; a blank line also ends a sentence."""
    content_start, content_end = _content(text, 0, len(text))
    cuts = set(sentence_ends(text, 0, content_end))
    cuts.update(m.end() for m in _PARAGRAPH.finditer(text, 0, content_end))
    bounds = [0, *sorted(c for c in cuts if content_start < c < content_end), len(text)]
    return [Atom(a, b, units.count(a, b)) for a, b in pairwise(bounds)]


def sentence_pieces(text: str, units: Units, size: int, overlap: int) -> list[Piece]:
    """Sentences packed up to `size` units; `overlap` counts sentences, not units."""
    if not text:
        return []
    return pack(sentence_atoms(text, units), Packing(size, overlap, overlap_in_atoms=True))

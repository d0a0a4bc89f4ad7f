"""Greedy packing of atoms into chunks, shared by the recursive, sentences and markdown splitters.

Atoms tile the document (each starts where the one before it ends), so a chunk made of
consecutive atoms has its offsets by construction and every character lands in a chunk.
Structure is expressed as flags on atoms: `glue` keeps an atom with the next one (a
heading with its first paragraph, a table header with its first row), `section` forces a
new chunk (a heading run).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaluator.chunking.pieces import Piece


@dataclass(frozen=True)
class Atom:
    """The smallest range a packing splitter will not cut."""

    start: int
    """First code point, inclusive."""
    end: int
    """End, exclusive; the next atom starts here."""
    size: int
    """Measure in the splitter's unit."""
    glue: bool = False
    """Must share a chunk with the next atom."""
    section: bool = False
    """A chunk must start here."""
    prefix: str = ""
    """Prefix for a chunk that starts with this atom."""
    prefix_source: tuple[tuple[int, int], ...] = ()
    """Where the prefix's text lies in the document."""


@dataclass(frozen=True)
class Packing:
    """How atoms are packed: a size limit and an overlap counted in units or in atoms."""

    size: int
    """Chunk size limit in units; a glued group bigger than this is kept whole."""
    overlap: int
    """How much of a chunk's tail the next chunk repeats."""
    overlap_in_atoms: bool = False
    """Count overlap in atoms (sentences) rather than units."""


def pack(atoms: Sequence[Atom], how: Packing) -> list[Piece]:
    """Chunks of consecutive atoms: each as full as the limit allows, at least one new atom."""
    group_end = _group_ends(atoms)
    pieces: list[Piece] = []
    first = fresh = 0
    while fresh < len(atoms):
        total = sum(a.size for a in atoms[first:fresh])
        after = fresh
        while after < len(atoms):
            extra = sum(a.size for a in atoms[after : group_end[after]])
            if after > fresh and (atoms[after].section or total + extra > how.size):
                break
            total += extra
            after = group_end[after]
        head = atoms[first]
        pieces.append(Piece(head.start, atoms[after - 1].end, head.prefix, head.prefix_source))
        if after < len(atoms):
            first = _overlap_start(atoms, first, after, group_end, how)
        fresh = after
    return pieces


def _group_ends(atoms: Sequence[Atom]) -> list[int]:
    """For each atom, the index after the glued run it begins."""
    ends = [0] * len(atoms)
    following = len(atoms)
    for i in range(len(atoms) - 1, -1, -1):
        if not atoms[i].glue:
            following = i + 1
        ends[i] = following
    return ends


def _overlap_start(
    atoms: Sequence[Atom], first: int, after: int, group_end: list[int], how: Packing
) -> int:
    """First atom of the next chunk: the previous chunk's tail, within overlap and size.

    The tail never reaches the previous chunk's first atom (so starts always advance) and
    never crosses a section start; it shrinks until the first new group still fits.
    """
    if how.overlap == 0 or atoms[after].section:
        return after
    budget = sum(a.size for a in atoms[after : group_end[after]])
    start, used, units = after, 0, 0
    while start - 1 > first and not atoms[start].section:
        candidate = atoms[start - 1]
        cost = 1 if how.overlap_in_atoms else candidate.size
        if used + cost > how.overlap or units + candidate.size + budget > how.size:
            break
        start, used, units = start - 1, used + cost, units + candidate.size
    return start

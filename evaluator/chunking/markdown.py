"""The markdown splitter: blocks become atoms whose flags carry the structure, then pack.

A heading run is glued to the first atom of the block after it and starts a new chunk;
code fences and tables that fit stay whole, bigger ones are cut only between lines/rows.
A chunk that starts inside a table or fence repeats its head (header and delimiter row,
or the opening fence) as prefix, after the breadcrumb of the headings above it.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from evaluator.chunking.md_blocks import Block, parse_blocks
from evaluator.chunking.packing import Atom, Packing, pack
from evaluator.chunking.pieces import Piece
from evaluator.chunking.recursive import SENTENCE_LEVEL, split_range
from evaluator.chunking.units import Units
from labeler.core.text.ranges import Range

ROW_LEVEL = SENTENCE_LEVEL
"""A row or code line too big for the size is cut at sentence ends, spaces, then units."""


def markdown_pieces(text: str, units: Units, size: int, overlap: int) -> list[Piece]:
    if not text:
        return []
    return pack(markdown_atoms(text, parse_blocks(text), units, size), Packing(size, overlap))


def markdown_atoms(text: str, blocks: list[Block], units: Units, size: int) -> list[Atom]:
    atoms: list[Atom] = []
    trail: list[tuple[int, Range]] = []  # (level, heading line's range) of the headings above
    lead = 0  # units of the heading run glued to the next block
    for i, block in enumerate(blocks):
        if block.kind == "heading":
            first_of_run = i == 0 or blocks[i - 1].kind != "heading"
            lead = (0 if first_of_run else lead) + units.count(block.start, block.end)
            above = [(lvl, at) for lvl, at in trail if lvl < block.level]
            heading = Atom(
                block.start,
                block.end,
                units.count(block.start, block.end),
                glue=i + 1 < len(blocks),
                section=first_of_run,
            )
            atoms.append(_with_prefix(heading, text, above, None))
            trail = [*above, (block.level, _stripped(text, block.start, block.head_end))]
            continue
        for atom in _block_atoms(text, block, units, size, lead):
            inside = atom.start > block.start and block.kind in ("table", "fence")
            # lstrip: the first block also holds the document's leading blank lines.
            head = _stripped(text, block.start, block.head_end, "\n") if inside else None
            atoms.append(_with_prefix(atom, text, trail, head))
        lead = 0
    return atoms


def _stripped(text: str, start: int, end: int, chars: str | None = None) -> Range:
    """The range of text[start:end] without its leading (and, by default, trailing) blanks."""
    part = text[start:end]
    first = start + len(part) - len(part.lstrip(chars))
    last = end if chars else start + len(part.rstrip())
    return first, max(first, last)


def _with_prefix(atom: Atom, text: str, trail: list[tuple[int, Range]], head: Range | None) -> Atom:
    """The atom with its prefix: the breadcrumb's lines, then a table's or fence's head,
    each copied from the text, with the ranges it was copied from (§17)."""
    crumbs = [at for _, at in trail]
    prefix = "".join(f"{text[a:b]}\n" for a, b in crumbs) + (
        text[head[0] : head[1]] if head else ""
    )
    source = tuple(r for r in [*crumbs, *([head] if head else [])] if r[1] > r[0])
    return replace(atom, prefix=prefix, prefix_source=source)


def _block_atoms(text: str, block: Block, units: Units, size: int, lead: int) -> list[Atom]:
    whole = units.count(block.start, block.end)
    if block.kind in ("table", "fence") and whole + lead > size and block.lines:
        return _row_atoms(text, block, units, size)
    atoms = split_range(text, block.start, block.end, units, size)
    if 0 < lead < size and atoms[0].size + lead > size:
        # Cut the first part at a sentence or line so the heading fits with it; a cut
        # at a space is not worth it, the chunk may then run over by the heading.
        first = atoms[0]
        deepest = SENTENCE_LEVEL + 1
        atoms[0:1] = split_range(text, first.start, first.end, units, size - lead, 0, deepest)
    return atoms


def _row_atoms(text: str, block: Block, units: Units, size: int) -> list[Atom]:
    """One atom per row or code line; the head is glued to the first row after it."""
    bounds = [block.start, *block.lines, block.end]
    rows = list(pairwise(bounds))
    atoms: list[Atom] = []
    for k, (a, b) in enumerate(rows):
        # The head stays with the first row; a fence's last line is its closing marker.
        glue = k == 0 or (block.kind == "fence" and k == len(rows) - 2)
        parts = split_range(text, a, b, units, size, ROW_LEVEL)
        atoms.extend(parts[:-1])
        atoms.append(replace(parts[-1], glue=glue))
    return atoms

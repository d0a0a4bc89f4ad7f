"""Soft-wrapped text as row offsets, so a view draws only the rows on screen.

A document is wrapped once per width: plain ASCII lines (nearly all of them) break with
`str.rfind` in C, other lines grapheme by grapheme through rich's cell table. After that,
every question a view asks (which row holds an offset, which offset sits under a cell) is
a bisect plus a walk along one row. No Textual here, so it is tested on its own.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

from rich.cells import split_graphemes

from labeler.core.display import masked
from labeler.tui.widgets.document_view.blocks import Block

TAB_CELLS = 4
"""A tab is drawn as this many spaces."""

_PLAIN = re.compile(r"[ -~]*")
"""Printable ASCII: one code point, one cell, drawn as itself."""


class Glyph(NamedTuple):
    """One grapheme as drawn: its code points in the text, its width and what to draw."""

    start: int
    """First code point of the grapheme."""
    end: int
    """One past its last code point."""
    cells: int
    """Terminal cells it takes."""
    text: str
    """What to draw for it."""


def is_plain(text: str, start: int = 0, end: int | None = None) -> bool:
    """True when text[start:end] is printable ASCII (one cell per code point)."""
    stop = len(text) if end is None else end
    return _PLAIN.fullmatch(text, start, stop) is not None


def glyphs(text: str, start: int, end: int) -> list[Glyph]:
    """The graphemes of text[start:end] (no newline inside), with cells and drawing."""
    piece = text[start:end]
    if is_plain(piece):
        return [Glyph(start + i, start + i + 1, 1, ch) for i, ch in enumerate(piece)]
    # Controls and bidi characters are drawn as one placeholder cell (display.masked): they
    # never reach the terminal raw, and each still takes one offset and one cell.
    shown = masked(piece).replace("\t", " ")
    spans, _ = split_graphemes(shown)
    out: list[Glyph] = []
    for a, b, cells in spans:
        if piece[a:b] == "\t":
            out.append(Glyph(start + a, start + b, TAB_CELLS, " " * TAB_CELLS))
        else:
            out.append(Glyph(start + a, start + b, cells, shown[a:b]))
    return out


def _wrap_plain(text: str, pos: int, end: int, width: int, rows: list[int]) -> None:
    # Break after the last space that fits; a word longer than the row is cut.
    while end - pos > width:
        space = text.rfind(" ", pos + 1, pos + width)
        pos = space + 1 if space > pos else pos + width
        rows.append(pos)


def _wrap_glyphs(text: str, pos: int, end: int, width: int, rows: list[int]) -> None:
    used = 0
    row_start = pos
    after_space = -1
    for g in glyphs(text, pos, end):
        if used + g.cells > width and g.start > row_start:
            cut = after_space if after_space > row_start else g.start
            rows.append(cut)
            row_start = cut
            used = sum(x.cells for x in glyphs(text, cut, g.start))
            after_space = -1
        used += g.cells
        if g.text.isspace():
            after_space = g.end


UNWRAPPED_LIMIT = 2_000
"""A block's line longer than this (code points) soft-wraps after all: drawing it whole
would cost a walk along all of it on every frame."""


def _wrap_line(text: str, pos: int, end: int, width: int, rows: list[int]) -> None:
    plain = is_plain(text, pos, end)
    if plain and end - pos > width:
        _wrap_plain(text, pos, end, width, rows)
    elif not plain:  # a short line may still be wide in cells
        _wrap_glyphs(text, pos, end, width, rows)


def _soft(text: str, pos: int, stop: int, width: int, rows: list[int]) -> int:
    """Soft-wrap the lines that start in [pos, stop); return where the next line starts
    (past the end when none does). The hot loop of a first paint: kept inline."""
    while pos < stop:
        newline = text.find("\n", pos)
        end = len(text) if newline < 0 else newline
        if end - pos > width:
            if is_plain(text, pos, end):
                _wrap_plain(text, pos, end, width, rows)
            else:
                _wrap_glyphs(text, pos, end, width, rows)
        elif not is_plain(text, pos, end):
            _wrap_glyphs(text, pos, end, width, rows)
        pos = end + 1
        if newline >= 0:
            rows.append(pos)
    return pos


def _whole(text: str, block: Block, width: int, rows: list[int]) -> int:
    """One row per line of a block (a line over the limit soft-wraps); as `_soft`."""
    pos = block.start
    while pos <= block.end:
        newline = text.find("\n", pos)
        end = len(text) if newline < 0 else newline
        if end - pos > UNWRAPPED_LIMIT:
            _wrap_line(text, pos, end, width, rows)
        pos = end + 1
        if newline >= 0:
            rows.append(pos)
    return pos


def wrap(text: str, width: int, blocks: Sequence[Block] = ()) -> list[int]:
    """The first offset of every row when `text` is soft-wrapped at `width` cells; lines
    inside `blocks` (sorted) are one row each."""
    rows = [0]
    pos = 0
    for block in blocks:
        _soft(text, pos, block.start, width, rows)
        pos = _whole(text, block, width, rows)
    _soft(text, pos, len(text) + 1, width, rows)
    return rows


class Layout:
    """A text wrapped at a width: rows as offsets, and the mapping between offsets and cells."""

    def __init__(self, text: str, width: int, blocks: Sequence[Block] = ()) -> None:
        self.text = text
        """The canonical text."""
        self.width = max(1, width)
        """Most cells a soft-wrapped row holds."""
        self.blocks = list(blocks)
        """Runs of lines drawn unwrapped (one row per line), sorted."""
        self.starts = wrap(text, self.width, self.blocks)
        """First offset of every row, ascending."""
        self._block_starts = [b.start for b in self.blocks]
        self._block_cells: dict[int, int] = {}

    @property
    def rows(self) -> int:
        return len(self.starts)

    def row_of(self, offset: int) -> int:
        """The row that shows `offset` (an offset at a newline sits at its row's end)."""
        return max(0, bisect_right(self.starts, offset) - 1)

    def row_span(self, row: int) -> tuple[int, int]:
        """The offsets a row draws: start inclusive, end exclusive, newline left out."""
        start = self.starts[row]
        if row + 1 < len(self.starts):
            end = self.starts[row + 1]
            if end > start and self.text[end - 1] == "\n":
                end -= 1
        else:
            end = len(self.text)
        return start, end

    def row_glyphs(self, row: int) -> list[Glyph]:
        start, end = self.row_span(row)
        return glyphs(self.text, start, end)

    def column_of(self, offset: int) -> int:
        """Cells before `offset` on its row."""
        start, end = self.row_span(self.row_of(offset))
        if is_plain(self.text, start, end):
            return min(offset, end) - start
        return sum(g.cells for g in glyphs(self.text, start, min(offset, end)))

    def offset_at(self, row: int, column: int) -> int:
        """The offset drawn at (row, column); past the row's end, the row's end."""
        row = min(max(row, 0), self.rows - 1)
        start, end = self.row_span(row)
        if is_plain(self.text, start, end):
            return start + min(max(column, 0), end - start)
        used = 0
        for g in glyphs(self.text, start, end):
            if used + g.cells > column:
                return g.start
            used += g.cells
        return end

    def next_offset(self, offset: int) -> int:
        """One grapheme to the right (a newline counts as one)."""
        if offset >= len(self.text):
            return len(self.text)
        start, end = self.row_span(self.row_of(offset))
        # Two plain code points in a row: the first is a grapheme of its own.
        if offset >= end or is_plain(self.text, offset, min(offset + 2, end)):
            return offset + 1
        return next((g.end for g in glyphs(self.text, start, end) if g.end > offset), end)

    def previous_offset(self, offset: int) -> int:
        """One grapheme to the left."""
        if offset <= 0:
            return 0
        start, end = self.row_span(self.row_of(offset - 1))
        if offset - 1 >= end or is_plain(self.text, max(start, offset - 2), offset):
            return offset - 1
        inside = (g.start for g in glyphs(self.text, start, end) if g.start < offset <= g.end)
        return next(inside, offset - 1)

    # -- rows drawn unwrapped ------------------------------------------------------------

    def block_of(self, row: int) -> int | None:
        """The index of the block a row is an unwrapped line of (None: a soft-wrapped row)."""
        start = self.starts[row]
        k = bisect_right(self._block_starts, start) - 1
        if k < 0 or start > self.blocks[k].end:
            return None
        whole_start = start == 0 or self.text[start - 1] == "\n"
        next_start = self.starts[row + 1] if row + 1 < self.rows else len(self.text) + 1
        whole_end = self.text[next_start - 1 : next_start] in ("\n", "")
        return k if whole_start and whole_end else None

    def row_cells(self, row: int) -> int:
        """Cells a row's text takes."""
        start, end = self.row_span(row)
        if is_plain(self.text, start, end):
            return end - start
        return sum(g.cells for g in glyphs(self.text, start, end))

    def block_cells(self, block: int) -> int:
        """Cells of a block's widest line (worked out once)."""
        if block not in self._block_cells:
            first, last = self.row_of(self.blocks[block].start), self.row_of(self.blocks[block].end)
            self._block_cells[block] = max(self.row_cells(r) for r in range(first, last + 1))
        return self._block_cells[block]

    def window(self, row: int, lo: int, hi: int) -> tuple[int, int, int]:
        """The offsets of the whole graphemes a row draws in cells [lo, hi), and the cells
        left blank before the first (a wide character cut by `lo` is not drawn)."""
        start, end = self.row_span(row)
        if is_plain(self.text, start, end):
            return min(start + lo, end), min(start + hi, end), 0
        a, pad, used = end, 0, 0
        for g in glyphs(self.text, start, end):
            if used >= lo and a == end:
                a, pad = g.start, used - lo
            if used + g.cells > hi:
                return a, g.start if a < end else a, pad
            used += g.cells
        return a, end, pad

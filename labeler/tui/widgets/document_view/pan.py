"""The sideways shift of unwrapped rows (code, tables): which columns show, how the shift
follows the cursor, and how far it may go. Arithmetic on cells and a layout, no Textual,
so every edge case is tested without a screen; each block keeps a shift of its own.
"""

from __future__ import annotations

from labeler.tui.widgets.document_view.layout import Layout

LEFT_EDGE = "‹"
"""Drawn in a shifted row's first cell: the line goes on to the left."""
RIGHT_EDGE = "›"
"""Drawn in the cell after a row's last: the line goes on to the right."""
STEP = 4
"""Cells one notch of a sideways mouse wheel moves."""


def first_shown(shift: int) -> int:
    """The first column drawn under a shift; a shifted row's first cell holds `‹`."""
    return shift + 1 if shift else 0


def follow(shift: int, column: int, width: int) -> int:
    """The least change of `shift` that shows `column` in `width` cells (width ≥ 2)."""
    if column >= shift + width:
        return column - width + 1
    if column < first_shown(shift):
        return max(0, column - 1)
    return shift


def clamp(shift: int, widest: int, width: int) -> int:
    """`shift` kept between 0 and the shift that shows the widest line's end (the cursor
    after its last character included)."""
    return max(0, min(shift, widest + 1 - width))


class Shifts:
    """The shift of every block of one layout's document (0 for a block never shifted)."""

    def __init__(self) -> None:
        self._of: dict[int, int] = {}

    def clear(self) -> None:
        self._of.clear()

    def get(self, layout: Layout, block: int, cells: int) -> int:
        """A block's shift in rows of `cells` text cells (a wider pane may need less)."""
        shift = self._of.get(block, 0)
        return clamp(shift, layout.block_cells(block), cells) if shift else 0

    def show(self, layout: Layout, offset: int, cells: int) -> None:
        """Shift the block holding `offset`, if any, the least that shows it."""
        block = layout.block_of(layout.row_of(offset))
        if block is not None:
            column = layout.column_of(offset)
            self._of[block] = follow(self.get(layout, block, cells), column, cells)

    def move(self, layout: Layout, block: int, delta: int, cells: int) -> None:
        shift = self.get(layout, block, cells) + delta
        self._of[block] = clamp(shift, layout.block_cells(block), cells)

    def column(self, layout: Layout, row: int, x: int, cells: int) -> int:
        """The column of a row drawn at screen cell `x`."""
        block = layout.block_of(row)
        return x if block is None else x + self.get(layout, block, cells)

"""The sideways shift of unwrapped rows (code, tables): which columns show, how the shift
follows the cursor, and how far it may go. Plain arithmetic on cells, so every edge case
is tested without a screen; the widget keeps one shift per block.
"""

from __future__ import annotations

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

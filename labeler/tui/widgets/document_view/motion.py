"""Where each cursor key lands in wrapped text: a pure function of the layout and cursor.

Vertical moves keep a goal column (the column the cursor had when vertical moving
started), as editors do, so moving through a short line does not pull the cursor left.
"""

from __future__ import annotations

from labeler.tui.widgets.document_view.layout import Layout
from labeler.tui.widgets.document_view.textnav import word_left, word_right

VERTICAL = ("up", "down", "pageup", "pagedown")
"""Moves that keep the goal column."""


def row_end(layout: Layout, row: int) -> int:
    """Where `end` puts the cursor: the row's last offset, one short on a soft-wrapped row
    (its end offset is drawn at the start of the next row)."""
    start, end = layout.row_span(row)
    soft = row + 1 < layout.rows and layout.starts[row + 1] == end
    return layout.previous_offset(end) if soft and end > start else end


def target(
    layout: Layout, cursor: int, where: str, goal: int | None, page: int
) -> tuple[int, int | None]:
    """The offset a move lands on, and the goal column to keep for the next move."""
    row = layout.row_of(cursor)
    if where in VERTICAL:
        goal = layout.column_of(cursor) if goal is None else goal
        step = {"up": -1, "down": 1, "pageup": -page, "pagedown": page}[where]
        return layout.offset_at(row + step, goal), goal
    text = layout.text
    match where:
        case "left":
            return layout.previous_offset(cursor), None
        case "right":
            return layout.next_offset(cursor), None
        case "home":
            return layout.row_span(row)[0], None
        case "end":
            return row_end(layout, row), None
        case "word_left":
            return word_left(text, cursor), None
        case "word_right":
            return word_right(text, cursor), None
        case "top":
            return 0, None
    return len(text), None

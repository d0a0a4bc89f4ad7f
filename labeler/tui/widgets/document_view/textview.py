"""The document view's text, cursor, selection, layout and painting, without its keys.

Only visible rows are drawn: the text is wrapped once into row offsets (`Layout`) and
each row finds its highlights by bisect (`MarkIndex`), so a 2 MB document with thousands
of spans paints as fast as a short one. Code and table lines stay whole, drawn through a
window of cells that a per-block shift (`pan`) moves.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from labeler.tui.widgets.document_view import pan
from labeler.tui.widgets.document_view.blocks import Block
from labeler.tui.widgets.document_view.kept import KeptLayouts
from labeler.tui.widgets.document_view.layout import Layout
from labeler.tui.widgets.document_view.marks import Mark, MarkIndex, Role
from labeler.tui.widgets.document_view.messages import CursorMoved
from labeler.tui.widgets.document_view.motion import target
from labeler.tui.widgets.document_view.paint import Layer, ranges_in, row_segments
from labeler.tui.widgets.document_view.textnav import find_all

_ROLE_CLASS = {
    Role.CURRENT: "document-view--span-current",
    Role.OTHER: "document-view--span-other",
    Role.ANNOTATOR_A: "document-view--annotator-a",
    Role.ANNOTATOR_B: "document-view--annotator-b",
}
_ALTERNATIVE = "document-view--span-alternative"
"""Drawn over a current-query role: the span is one of several alternatives (§18)."""
_LAYER_ORDER = (Role.OTHER, Role.CURRENT, Role.ANNOTATOR_A, Role.ANNOTATOR_B)


class TextView(ScrollView, can_focus=True):
    """Soft-wrapped text with highlighted spans, a cursor and a selection."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.doc_id: str | None = None
        """The document shown."""
        self.text = ""
        """Its canonical text."""
        self.cursor = 0
        """The cursor's offset."""
        self.pivot: int | None = None
        """Where the selection started (its fixed end); the cursor is its other end."""
        self.marks = MarkIndex()
        """The highlighted spans."""
        self.generation = 0
        """Counts `clear_selection` calls: an add asked for before the last one is stale."""
        self.dropped: str | None = None
        """Why the last selection was dropped, when the screen said (`a` repeats it)."""
        self._layout: Layout | None = None
        self._matches: list[tuple[int, int]] = []
        self._match_ends: list[int] = []
        self._goal: int | None = None
        self._drag_from: int | None = None
        self._places: dict[str, tuple[int, int]] = {}
        self._center_pending = False
        self._styles: dict[str, Style] = {}
        self._width = 0
        self._blocks: list[Block] = []
        self._shifts = pan.Shifts()
        self.kept = KeptLayouts()
        """Recent documents' layouts: a document opened again is not wrapped again."""

    def load(self, doc_id: str, text: str) -> None:
        """Show a document; the cursor returns to where it was left in it."""
        if self.doc_id is not None:
            self._places[self.doc_id] = (self.cursor, round(self.scroll_y))
        self.doc_id, self.text = doc_id, text
        self._blocks = self.kept.blocks(doc_id, text)
        self._shifts.clear()
        self.cursor, top = self._places.get(doc_id, (0, 0))
        self.pivot, self._matches, self._match_ends, self._goal = None, [], [], None
        self._layout = None
        self._relayout()
        self.scroll_to(y=top, animate=False)
        self._changed()

    def set_marks(self, marks: list[Mark]) -> None:
        self.marks = MarkIndex(marks)
        self.refresh()

    @property
    def selection(self) -> tuple[int, int] | None:
        """The selected range, or None when nothing is selected."""
        if self.pivot is None or self.pivot == self.cursor:
            return None
        return min(self.pivot, self.cursor), max(self.pivot, self.cursor)

    def select(self, start: int, end: int) -> None:
        """Select a range and show it in the middle of the view."""
        self.pivot, self.cursor = self._clamp(start), self._clamp(end)
        self._changed(center=True)

    def go_to(self, offset: int) -> None:
        self.pivot = None
        self.cursor = self._clamp(offset)
        self._changed(center=True)

    def clear_selection(self, why: str | None = None) -> None:
        """Drop the selection; `why` is what `a` says until something is selected again."""
        self.dropped = why if self.selection is not None else self.dropped if why else None
        self.pivot = None
        self.generation += 1
        self._changed(scroll=False)

    def find(self, needle: str, *, forward: bool = True) -> int:
        """Highlight every match and select the next one after the cursor; returns the count."""
        self._matches = find_all(self.text, needle)
        self._match_ends = [b for _, b in self._matches]
        if self._matches:
            self.find_next(forward=forward)
        else:
            self.refresh()
        return len(self._matches)

    def find_next(self, *, forward: bool = True) -> None:
        if not self._matches:
            return
        here = self.selection[0] if self.selection else self.cursor
        if forward:
            found = next((m for m in self._matches if m[0] > here), self._matches[0])
        else:
            found = next((m for m in reversed(self._matches) if m[0] < here), self._matches[-1])
        self.select(*found)

    @property
    def text_layout(self) -> Layout | None:
        """The text as wrapped for this width (None before the view has a size)."""
        return self._layout

    @property
    def layout_rows(self) -> int:
        return 0 if self._layout is None else self._layout.rows

    def _text_width(self) -> int:
        # One cell is kept free for the cursor at the end of a full row.
        return max(1, self.scrollable_content_region.width - 1)

    def _relayout(self) -> None:
        if self.scrollable_content_region.width <= 1:
            return  # not laid out yet: wrapping waits for the first resize
        width = self._text_width()
        self._width = width + 1
        if self._layout is None or self._layout.width != width:
            self._layout = self.kept.layout(self.doc_id or "", self.text, width)
        self.virtual_size = Size(width + 1, self._layout.rows)
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self._relayout()
        self._scroll_to_cursor(center=self._center_pending)
        self._center_pending = False

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _base_style(self) -> Style:
        # Computing the widget's style blends every ancestor's background: once per theme.
        if "" not in self._styles:
            self._styles[""] = self.rich_style
        return self._styles[""]

    def render_line(self, y: int) -> Strip:
        width = self._width
        base = self._base_style()
        row = round(self.scroll_y) + y
        layout = self._layout
        if layout is None or row >= layout.rows:
            return Strip.blank(width, base)
        block = layout.block_of(row)
        if block is not None:
            return self._unwrapped_line(layout, row, block)
        start, end = layout.row_span(row)
        segments = row_segments(self.text, start, end, self._layers(start, end), base)
        if self.cursor == end and layout.row_of(end) == row:
            segments.append(Segment(" ", base + self._style("document-view--cursor")))
        return Strip(segments).crop_extend(0, width, base)

    def _unwrapped_line(self, layout: Layout, row: int, block: int) -> Strip:
        """A code or table line, shifted and clipped: the first cell holds `‹` when
        shifted, the last `›` when the line goes on."""
        base, edge, cells = self._base_style(), self._style("document-view--edge"), self._cells()
        shift = self._shifts.get(layout, block, cells)
        start, end = layout.row_span(row)
        a, b, pad = layout.window(row, pan.first_shown(shift), shift + cells)
        segments = [Segment(pan.LEFT_EDGE if end > start else " ", base + edge)] if shift else []
        segments.append(Segment(" " * pad, base))
        segments += row_segments(self.text, a, b, self._layers(a, b), base)
        if self.cursor == end == b:
            segments.append(Segment(" ", base + self._style("document-view--cursor")))
        tail = Segment(pan.RIGHT_EDGE, base + edge) if b < end else Segment(" ", base)
        return Strip([*Strip(segments).crop_extend(0, cells, base), tail])

    def _cells(self) -> int:
        """Cells an unwrapped row shows text in (the last holds `›`)."""
        return max(2, self._width - 1)

    def _style(self, component: str) -> Style:
        if component not in self._styles:
            self._styles[component] = self.get_component_rich_style(component, partial=True)
        return self._styles[component]

    def _mark_style(self, mark: Mark) -> Style:
        """The mark's role, and over it the alternative's style when it is one (§18)."""
        style = self._style(_ROLE_CLASS[mark.role])
        return style + self._style(_ALTERNATIVE) if mark.alternative else style

    def _layers(self, start: int, end: int) -> list[Layer]:
        """What to paint over [start, end], bottom layer first: find matches sit between
        other queries' spans and the current query's, under the selection and cursor."""
        hi = max(end, start + 1)
        found = self.marks.overlapping(start, hi)
        layers = [
            (m.start, m.end, self._style(_ROLE_CLASS[m.role]))
            for m in found
            if m.role is Role.OTHER
        ]
        match = self._style("document-view--match")
        layers += [(a, b, match) for a, b in ranges_in(self._matches, self._match_ends, start, hi)]
        layers += [
            (m.start, m.end, self._mark_style(m))
            for role in _LAYER_ORDER[1:]
            for m in found
            if m.role is role
        ]
        if self.selection is not None:
            layers.append((*self.selection, self._style("document-view--selection")))
        layers.append((self.cursor, self.cursor + 1, self._style("document-view--cursor")))
        return [(a, b, s) for a, b, s in layers if a < hi and b > start]

    def _clamp(self, offset: int) -> int:
        return min(max(offset, 0), len(self.text))

    def action_move(self, where: str, extend: bool = False) -> None:
        if self._layout is None:
            return
        before = self._layout.row_of(self.cursor)
        page = max(1, self.scrollable_content_region.height - 1)
        landed, self._goal = target(self._layout, self.cursor, where, self._goal, page)
        if extend and self.pivot is None:
            self.pivot = self.cursor
        elif not extend:
            self.pivot = None
        self.cursor = self._clamp(landed)
        if where in ("pageup", "pagedown"):  # the page turns with the cursor
            delta = self._layout.row_of(self.cursor) - before
            self.scroll_to(y=round(self.scroll_y) + delta, animate=False)
        self._changed()

    def _scroll_to_cursor(self, *, center: bool = False) -> None:
        if self._layout is None:
            self._center_pending = self._center_pending or center
            return
        self._shifts.show(self._layout, self.cursor, self._cells())
        row = self._layout.row_of(self.cursor)
        top, height = round(self.scroll_y), max(1, self.scrollable_content_region.height)
        if center and not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 3), animate=False)
        elif row < top:
            self.scroll_to(y=row, animate=False)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False)

    def action_pan(self, direction: int) -> None:
        """Shift the cursor's block half a pane sideways, or, when the cursor is not in a
        block on screen, every block on screen."""
        if self._layout is None:
            return
        blocks = self._blocks_on_screen(self._layout)
        mine = self._layout.block_of(self._layout.row_of(self.cursor))
        for block in [mine] if mine in blocks else blocks:
            self._pan(block, direction * max(1, self._cells() // 2))
        if not blocks:  # said, not rung: a bell over SSH is often neither heard nor seen
            self.notify("< and > shift code and tables sideways: none is on screen.", timeout=3)

    def _blocks_on_screen(self, layout: Layout) -> list[int]:
        top = round(self.scroll_y)
        rows = range(top, min(layout.rows, top + self.scrollable_content_region.height))
        return sorted({b for b in map(layout.block_of, rows) if b is not None})

    def _pan(self, block: int, delta: int) -> None:
        if self._layout is not None:
            self._shifts.move(self._layout, block, delta, self._cells())
            self.refresh()

    def _changed(self, *, scroll: bool = True, center: bool = False) -> None:
        if scroll:
            self._scroll_to_cursor(center=center)
        self.refresh()
        self.post_message(CursorMoved(self, self.cursor, self.selection))

    def action_clear(self) -> None:
        """Escape drops the selection and the find highlights."""
        self._matches, self._match_ends = [], []
        self.clear_selection()

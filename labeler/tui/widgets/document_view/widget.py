"""The document view: canonical text on Textual's line API, with a cursor and a selection.

Only visible rows are drawn: the text is wrapped once into row offsets (`Layout`) and
each row finds its highlights by bisect (`MarkIndex`), so a 2 MB document with thousands
of spans paints as fast as a short one. Code and table lines stay whole, drawn through a
window of cells that a per-block shift (`pan`) moves. The view never touches the store: adding,
adjusting and dropping spans are messages the screen acts on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from labeler.tui.widgets.document_view import pan
from labeler.tui.widgets.document_view.blocks import Block, find_blocks
from labeler.tui.widgets.document_view.layout import Layout
from labeler.tui.widgets.document_view.marks import Mark, MarkIndex, Role
from labeler.tui.widgets.document_view.motion import target
from labeler.tui.widgets.document_view.paint import Layer, ranges_in, row_segments
from labeler.tui.widgets.document_view.textnav import find_all, snap_sentence, snap_word

_ROLE_CLASS = {
    Role.CURRENT: "document-view--span-current",
    Role.OTHER: "document-view--span-other",
    Role.ANNOTATOR_A: "document-view--annotator-a",
    Role.ANNOTATOR_B: "document-view--annotator-b",
}
_LAYER_ORDER = (Role.OTHER, Role.CURRENT, Role.ANNOTATOR_A, Role.ANNOTATOR_B)


def _move(key: str, where: str, *, extend: bool = False) -> Binding:
    return Binding(key, f"move('{where}', {extend})", where.replace("_", " "), show=False)


class DocumentView(ScrollView, can_focus=True):
    """Soft-wrapped text with highlighted spans, a cursor and a keyboard or mouse selection."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "document-view--span-current",
        "document-view--span-other",
        "document-view--annotator-a",
        "document-view--annotator-b",
        "document-view--selection",
        "document-view--cursor",
        "document-view--match",
        "document-view--edge",
    }
    DEFAULT_CSS = """
    DocumentView {
        background: $surface;
        color: $foreground;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
        overflow-y: scroll;
        & > .document-view--span-current { background: $span-current; text-style: bold; }
        & > .document-view--span-other { background: $span-other; text-style: underline; }
        & > .document-view--annotator-a { background: $annotator-a; text-style: bold; }
        & > .document-view--annotator-b { color: $annotator-b; text-style: bold underline; }
        & > .document-view--selection { background: $selection; }
        & > .document-view--match { background: $match; }
        & > .document-view--cursor { text-style: reverse; }
        & > .document-view--edge { color: $text-muted; text-style: bold; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *(_move(k, k) for k in ("left", "right", "up", "down", "home", "end")),
        *(_move(k, k) for k in ("pageup", "pagedown")),
        *(_move(f"shift+{k}", k, extend=True) for k in ("left", "right", "up", "down")),
        *(_move(f"shift+{k}", k, extend=True) for k in ("home", "end", "pageup", "pagedown")),
        _move("ctrl+left", "word_left"),
        _move("ctrl+right", "word_right"),
        _move("ctrl+shift+left", "word_left", extend=True),
        _move("ctrl+shift+right", "word_right", extend=True),
        _move("ctrl+home", "top"),
        _move("ctrl+end", "bottom"),
        Binding("a", "add", "Add span"),
        Binding("w", "snap('word')", "Snap to whole words, or double-click", show=False),
        Binding("s", "snap('sentence')", "Snap to sentences, or triple-click", show=False),
        Binding("escape", "clear", "Clear selection and find", show=False),
        Binding("n", "next_span(True)", "Next span of this query (all documents)", show=False),
        Binding("N", "next_span(False)", "Previous span", show=False),
        Binding("[", "nudge('start', -1)", "Move span start left a character", show=False),
        Binding("]", "nudge('start', 1)", "Move span start right a character", show=False),
        Binding("{", "nudge('end', -1)", "Move span end left a character", show=False),
        Binding("}", "nudge('end', 1)", "Move span end right a character", show=False),
        Binding("r", "redraw", "Redraw the span as the selection", show=False),
        Binding("x,delete", "drop", "Delete span", show=False),
        Binding("less_than_sign", "pan(-1)", "Shift code or table left", show=False),
        Binding("greater_than_sign", "pan(1)", "Shift code or table right", show=False),
    ]

    @dataclass
    class CursorMoved(Message):
        """The cursor or the selection changed."""

        view: DocumentView
        offset: int
        selection: tuple[int, int] | None

        @property
        def control(self) -> DocumentView:
            return self.view

    @dataclass
    class SelectionMade(Message):
        """The annotator asked to add the selection as evidence."""

        view: DocumentView
        doc: str
        start: int
        end: int
        generation: int | None = None
        """The view's `generation` when `a` was pressed (None: a caller that did not say)."""

        @property
        def control(self) -> DocumentView:
            return self.view

    @dataclass
    class EdgesChanged(Message):
        """The annotator moved a span's edges; the screen commits them."""

        view: DocumentView
        span_id: int
        start: int
        end: int

        @property
        def control(self) -> DocumentView:
            return self.view

    @dataclass
    class SpanDropped(Message):
        """The annotator asked to delete a span."""

        view: DocumentView
        span_id: int

        @property
        def control(self) -> DocumentView:
            return self.view

    @dataclass
    class SpansExhausted(Message):
        """Next/previous span found none in this document: the screen may change document."""

        view: DocumentView
        forward: bool

        @property
        def control(self) -> DocumentView:
            return self.view

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

    # -- attributes set by the screen ----------------------------------------------------

    def load(self, doc_id: str, text: str) -> None:
        """Show a document; the cursor returns to where it was left in it."""
        if self.doc_id is not None:
            self._places[self.doc_id] = (self.cursor, round(self.scroll_y))
        self.doc_id, self.text = doc_id, text
        self._blocks = find_blocks(text)
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

    def clear_selection(self) -> None:
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

    # -- layout and painting -------------------------------------------------------------

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
            self._layout = Layout(self.text, width, self._blocks)
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
            (m.start, m.end, self._style(_ROLE_CLASS[m.role]))
            for role in _LAYER_ORDER[1:]
            for m in found
            if m.role is role
        ]
        if self.selection is not None:
            layers.append((*self.selection, self._style("document-view--selection")))
        layers.append((self.cursor, self.cursor + 1, self._style("document-view--cursor")))
        return [(a, b, s) for a, b, s in layers if a < hi and b > start]

    # -- moving --------------------------------------------------------------------------

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
        if not blocks:
            self.app.bell()

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
        self.post_message(self.CursorMoved(self, self.cursor, self.selection))

    # -- selection and span keys ---------------------------------------------------------

    def action_clear(self) -> None:
        """Escape drops the selection and the find highlights."""
        self._matches, self._match_ends = [], []
        self.clear_selection()

    def action_snap(self, kind: str) -> None:
        lo, hi = self.selection or (self.cursor, self.cursor)
        snap = snap_word if kind == "word" else snap_sentence
        start, end = snap(self.text, lo, hi)
        if start == end:
            self.app.bell()
            return
        self.pivot, self.cursor = start, end
        self._changed()

    def action_add(self) -> None:
        if self.doc_id is None or self.selection is None:
            self.notify("Select text first: shift+arrows, w, s, or drag.", severity="warning")
            return
        self.post_message(
            self.SelectionMade(self, self.doc_id, *self.selection, self.generation)
        )

    def _editable(self) -> Mark | None:
        found = self.marks.editable_at(self.cursor)
        if found is None or found.span_id is None:
            self.notify("Put the cursor in one of this query's spans.", severity="warning")
            return None
        return found

    def action_nudge(self, edge: str, step: int) -> None:
        mark = self._editable()
        if mark is None or self._layout is None:
            return
        move = self._layout.next_offset if step > 0 else self._layout.previous_offset
        start, end = mark.start, mark.end
        if edge == "start":
            start = move(start)
        else:
            end = move(end)
        if not 0 <= start < end <= len(self.text):
            self.app.bell()
            return
        self.pivot = None
        self.cursor = start if edge == "start" else self._layout.previous_offset(end)
        self._changed()
        assert mark.span_id is not None
        self.post_message(self.EdgesChanged(self, mark.span_id, start, end))

    def action_redraw(self) -> None:
        selection = self.selection
        if selection is None:
            self.notify("Select the new extent first.", severity="warning")
            return
        inside = [m for m in self.marks.overlapping(*selection) if m.editable and m.span_id]
        if len(inside) != 1:
            self.notify("The selection must overlap exactly one of this query's spans.")
            return
        assert inside[0].span_id is not None
        self.post_message(self.EdgesChanged(self, inside[0].span_id, *selection))

    def action_drop(self) -> None:
        mark = self._editable()
        if mark is not None and mark.span_id is not None:
            self.post_message(self.SpanDropped(self, mark.span_id))

    def action_next_span(self, forward: bool) -> None:
        find = self.marks.next_start if forward else self.marks.previous_start
        found = find(self.cursor)
        if found is None:
            self.post_message(self.SpansExhausted(self, forward))
            return
        self.go_to(found)

    # -- mouse ---------------------------------------------------------------------------

    def _offset_at(self, event: events.MouseEvent) -> int:
        """The offset under the mouse; on a shifted row, the column under it is shifted."""
        where = event.get_content_offset_capture(self)
        layout = self._layout
        if layout is None:
            return self.cursor
        row = min(max(round(self.scroll_y) + where.y, 0), layout.rows - 1)
        return layout.offset_at(row, self._shifts.column(layout, row, where.x, self._cells()))

    def on_click(self, event: events.Click) -> None:
        """A double click selects the word under the mouse, a triple click its sentence,
        as `w` and `s` would with the cursor there (the mouse down put it there)."""
        if event.button == 1 and event.chain in (2, 3):
            snap = snap_word if event.chain == 2 else snap_sentence
            start, end = snap(self.text, self.cursor, self.cursor)
            if start < end:  # on white space or a blank line: the cursor stays, no selection
                self.pivot, self.cursor = start, end
                self._changed()

    def _block_under(self, event: events.MouseEvent) -> int | None:
        """The block of the row under the mouse, if it is an unwrapped row."""
        row = round(self.scroll_y) + event.get_content_offset_capture(self).y
        if self._layout is None or not 0 <= row < self._layout.rows:
            return None
        return self._layout.block_of(row)

    def _wheel_sideways(self, event: events.MouseEvent, direction: int) -> None:
        block = self._block_under(event)
        if block is not None:
            self._pan(block, direction * pan.STEP)
            event.stop()

    def on_mouse_scroll_right(self, event: events.MouseScrollRight) -> None:
        self._wheel_sideways(event, 1)

    def on_mouse_scroll_left(self, event: events.MouseScrollLeft) -> None:
        self._wheel_sideways(event, -1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if event.shift:  # shift+wheel scrolls sideways, as in most editors
            self._wheel_sideways(event, 1)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if event.shift:
            self._wheel_sideways(event, -1)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if event.button != 1:
            return
        offset = self._offset_at(event)
        if event.shift:
            self.pivot = self.cursor if self.pivot is None else self.pivot
        else:
            self.pivot = None
        self._drag_from = offset if self.pivot is None else self.pivot
        self.cursor = offset
        self.capture_mouse()
        self._changed()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._drag_from is None:
            return
        offset = self._offset_at(event)
        if offset != self.cursor:
            self.pivot, self.cursor = self._drag_from, offset
            self._changed()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._drag_from is not None:
            self._drag_from = None
            self.release_mouse()

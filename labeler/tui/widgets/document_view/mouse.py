"""The document view's mouse: click, double and triple click, drag, and sideways wheel.

A click puts the cursor, a drag selects, a double (triple) click snaps to the word
(sentence) as `w` (`s`) would, and the wheel sideways pans an unwrapped block.
"""

from __future__ import annotations

from textual import events

from labeler.tui.widgets.document_view import pan
from labeler.tui.widgets.document_view.textnav import snap_sentence, snap_word
from labeler.tui.widgets.document_view.textview import TextView


class MouseInput(TextView):
    """Mouse handlers of the document view."""

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

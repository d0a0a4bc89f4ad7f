"""The document view's span keys: snap, add, nudge, redraw, drop, next span.

The view never touches the store: each key posts a message the screen acts on.
"""

from __future__ import annotations

from labeler.tui.widgets.document_view.marks import Mark
from labeler.tui.widgets.document_view.messages import (
    EdgesChanged,
    SelectionMade,
    SpanDropped,
    SpansExhausted,
)
from labeler.tui.widgets.document_view.textnav import snap_sentence, snap_word
from labeler.tui.widgets.document_view.textview import TextView


class SpanKeys(TextView):
    """Keys that snap the selection or ask for a span edit."""

    def action_snap(self, kind: str) -> None:
        lo, hi = self.selection or (self.cursor, self.cursor)
        snap = snap_word if kind == "word" else snap_sentence
        start, end = snap(self.text, lo, hi)
        if start == end:  # said, not rung: a bell over SSH is often neither heard nor seen
            self.notify(f"No {kind} here to snap to: move onto text first.", timeout=3)
            return
        self.pivot, self.cursor = start, end
        self._changed()

    def action_add(self) -> None:
        if self.doc_id is None or self.selection is None:
            why = f"{self.dropped} " if self.dropped else ""
            self.notify(f"{why}Select text first: shift+arrows, w, s, or drag.",
                        severity="warning", markup=False)  # fmt: skip
            return
        self.post_message(SelectionMade(self, self.doc_id, *self.selection, self.generation))

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
            self.notify("The span cannot move that way: it would be empty or leave the text.",
                        timeout=3)  # fmt: skip
            return
        self.pivot = None
        self.cursor = start if edge == "start" else self._layout.previous_offset(end)
        self._changed()
        assert mark.span_id is not None
        self.post_message(EdgesChanged(self, mark.span_id, start, end, nudge=True))

    def action_redraw(self) -> None:
        """`r`: extend the span the selection overlaps out to the selection (shrinking is
        `[ ] { }`'s: one stray key never cuts evidence away)."""
        selection = self.selection
        if selection is None:
            self.notify("Select the new extent first.", severity="warning")
            return
        inside = [m for m in self.marks.overlapping(*selection) if m.editable and m.span_id]
        if len(inside) != 1:
            self.notify("The selection must overlap exactly one of this query's spans.")
            return
        span = inside[0]
        assert span.span_id is not None  # extended, never cut: the selection and the span
        start, end = min(span.start, selection[0]), max(span.end, selection[1])
        self.post_message(EdgesChanged(self, span.span_id, start, end))

    def action_drop(self) -> None:
        mark = self._editable()
        if mark is not None and mark.span_id is not None:
            self.post_message(SpanDropped(self, mark.span_id))

    def action_next_span(self, forward: bool) -> None:
        find = self.marks.next_start if forward else self.marks.previous_start
        found = find(self.cursor)
        if found is None:
            self.post_message(SpansExhausted(self, forward))
            return
        self.go_to(found)

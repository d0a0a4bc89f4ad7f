"""The document view's requests, turned into span edits on the current query.

The view only asks (add this selection, move these edges, drop this span); this is where
the screen checks the request still belongs to the query on screen and edits through the
`Editor`.
"""

from __future__ import annotations

from labeler.tui.label.showing import ShowingScreen
from labeler.tui.widgets.document_view import DocumentView


class SpanEvents(ShowingScreen):
    """Handlers of the document view's messages."""

    def on_document_view_cursor_moved(self, event: DocumentView.CursorMoved) -> None:
        if (event.offset, event.selection) == (self.view.cursor, self.view.selection):
            self._at_cursor(event.offset, event.selection)  # else stale: the cursor moved on

    def _seen_edges(self, span_id: int) -> tuple[int, int] | None:
        """The edges this screen showed for a span of the current query."""
        q = self.state.current_query
        found = [s for s in (q.evidence if q else ()) if s.id == span_id]
        return (found[0].start, found[0].end) if found else None

    def on_document_view_selection_made(self, event: DocumentView.SelectionMade) -> None:
        q = self.state.current_query
        if q is None:
            self.notify("Pick or create a query first (ctrl+n).", severity="warning")
            return
        if event.generation not in (None, self.view.generation) or q.id != self._shown_id:
            self.notify(f"The query changed to {q.id}: select the evidence again.", timeout=4)
            return
        if self._edit(lambda: self.editor.add_span(q.id, event.doc, event.start, event.end), q.id):
            self.view.clear_selection()

    def action_add_alternative(self) -> None:
        """`+`: the selection becomes an alternative of the span last visited (§18)."""
        of, sel, doc = self.state.visited_span, self.view.selection, self.view.doc_id
        if of is None or sel is None or doc is None:
            self.notify("Visit a span of this query, then select its copy and press +.",
                        severity="warning")  # fmt: skip
            return
        add = self.editor.add_alternative
        if self._edit(lambda: add(of, doc, *sel, seen_group=of.group), self.state.current):
            self.view.clear_selection()

    def on_document_view_edges_changed(self, event: DocumentView.EdgesChanged) -> None:
        move, seen = self.editor.move_span, self._seen_edges(event.span_id)
        nudge = event.nudge
        self._edit(
            lambda: move(event.span_id, event.start, event.end, seen=seen, nudge=nudge),
            self.state.current,
            lambda: move(event.span_id, event.start, event.end, nudge=nudge),
        )

    def on_document_view_span_dropped(self, event: DocumentView.SpanDropped) -> None:
        drop, seen = self.editor.delete_span, self._seen_edges(event.span_id)
        self._edit(lambda: drop(event.span_id, seen=seen), self.state.current,
                   lambda: drop(event.span_id))  # fmt: skip

    def on_document_view_spans_exhausted(self, event: DocumentView.SpansExhausted) -> None:
        """Past this document's last (or first) span: go on in the next document, wrapping."""
        here = self.view.doc_id or ""
        found = self.state.next_span(here, self.view.cursor, forward=event.forward)
        if found is None:
            self.notify("This query has no spans yet.", timeout=2)
            return
        self.open_document(found[0])
        self.view.go_to(found[1])

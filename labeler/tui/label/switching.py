"""Changing the current query: the list, `J`/`K`, `U`, triage's "fix label", the filter.

Every path ends in `ShowingScreen._show_current`, which drops a selection made on another
query, so evidence is never filed on the query the annotator moved to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input

from labeler.core.errors import SpanlabError
from labeler.tui.label.filters import QueryFilter
from labeler.tui.label.panels import ListTitle
from labeler.tui.label.query_list import QueryList
from labeler.tui.messages import AgreementRequested

if TYPE_CHECKING:  # corpus search (rapidfuzz) loads on the first ^f, not with the app
    pass
from labeler.tui.label.showing import ShowingScreen


class QuerySwitching(ShowingScreen):
    """The keys and messages that make another query current."""

    def query_highlighted(self, query_id: str) -> None:
        """The list's cursor moved (a key or a click): its query becomes current, drawn in
        the same frame as the list's row (`FollowsList`)."""
        self.state.lost = None
        if query_id != self.state.current:
            self.state.current = query_id
            self._show_current()
            self._goto_first_span()
            # the bar in this frame too, not after the view's CursorMoved (one frame later)
            self._at_cursor(self.view.cursor, self.view.selection)
            self._keep_place()

    def on_query_list_selected(self, event: QueryList.Selected) -> None:
        self.view.focus()

    def show_query(self, query_id: str) -> None:
        """Make `query_id` the current query (triage's "fix label"), listed or not."""
        if self.is_mounted:
            self._select(query_id)
        else:  # built just now by the switch: it opens on it
            self.state.current = query_id

    def action_next_query(self, step: int) -> None:
        self.query_list.action_move(step)

    def action_agreement(self) -> None:
        """The agreement screen (the app's mode), on the current query if it waits."""
        self.post_message(AgreementRequested(self.state.current))

    def action_next_unlabelled(self) -> None:
        """Your next query (your queue, else every query) you have not labelled yet."""
        found = self.editor.store.next_unlabelled(self.editor.annotator, self.state.current)
        if found is None:
            self.notify("Nothing left to label.", timeout=2)
            return
        if found not in self.query_list.ids:
            self.query_one("#filter", Input).value = ""
        self._select(found)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "filter":
            return
        try:
            self.state.filter = QueryFilter.parse(event.value)
        except SpanlabError as exc:
            self.query_one("#list-title", ListTitle).refuse(exc.message)
            return
        if self._fill_list(pin=False):
            self._show_current()
            self._goto_first_span()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            self.query_list.focus()

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

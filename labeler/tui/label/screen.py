"""The label screen: the query list beside the document view, and every labelling key.

The screen is the only place that turns what the user asked for (widget messages, keys)
into edits, through the `Editor`. This module lays it out and binds the keys; what they do
lives beside it by concept: `showing` (state, drawing, live reload), `switching` (which
query is current), `span_events` (the view's requests), `query_actions`, `navigation`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Label

from labeler.core.corpus.folder import Corpus
from labeler.tui.label.elsewhere import (
    WHERE,
    WHERE_TITLE,
    action_name,
    elsewhere_bindings,
    focus_note,
)
from labeler.tui.label.fact_actions import FactActions
from labeler.tui.label.navigation import Navigation
from labeler.tui.label.panels import CursorBar, QueryPanel
from labeler.tui.label.query_actions import QueryActions
from labeler.tui.label.query_list import QueryList
from labeler.tui.label.span_events import SpanEvents
from labeler.tui.label.switching import QuerySwitching
from labeler.tui.settings import Field
from labeler.tui.widgets.document_view import DocumentView

if TYPE_CHECKING:  # corpus search (rapidfuzz) loads on the first ^f, not with the app
    from labeler.tui.label.corpus_search import CorpusSearch

PALETTE = (
    ("view.add", "Add span", "Add the selection as evidence of the current query"),
    ("view.drop", "Delete span", "Delete the span under the cursor"),
    (
        "add_alternative",
        "Add as alternative",
        "Add the selection as an alternative of the last span visited: either will do",
    ),
    ("edit", "Edit query", "Text, pattern, slices, abstain, notes, status"),
    ("pattern", "Pattern", "Set the query's boundary pattern"),
    ("slices", "Slices", "Edit the query's slices, completed from those in use"),
    ("cycle_status", "Status", "Move the status on: draft, labelled, reviewed"),
    ("status_back", "Status back", "Move the status back: reviewed, labelled, draft"),
    ("label_empty", "Label empty", "Mark a draft labelled with no evidence (asks first)"),
    (
        "transitions",
        "Transitions to label",
        "Headings, list intros, table headers and code no query covers yet, most cut first",
    ),
    ("toggle_abstain", "Abstain", "Mark the query as having no evidence (or not)"),
    ("facts", "Facts", "The facts a complete answer states: the selection as one, or the list"),
    ("filter", "Filter queries", "By words, s:status, p:pattern, slice"),
    ("go_to", "Go to offset", "Move the cursor to a code point offset"),
    ("find", "Find in document", "Select the next match in this document"),
    ("search", "Search the corpus", "Fuzzy search for the current query"),
    ("suggest", "Suggest evidence", "Sentences likely to answer the query, to accept as a span"),
    ("open_document", "Open a document", "Pick a document to label in"),
    ("new", "New query", "Create a query"),
    ("duplicate", "Duplicate query", "Copy the current query with its evidence"),
    ("undo", "Undo", "Undo the last edit"),
    ("redo", "Redo", "Redo the last undone edit"),
    ("toggle_versions", "Per-annotator view", "Colour spans by annotator"),
)
"""The label screen's palette entries: action (`view.` for the document view's), title,
help line."""
LABEL_STYLESHEET = Path(__file__).with_name("label.tcss")
"""The screen's stylesheet, beside it in the package (so it ships in the wheel too)."""


def search_index(corpus: Corpus) -> CorpusSearch:
    """The corpus search index, imported and built when first asked for."""
    from labeler.tui.label.corpus_search import CorpusSearch

    return CorpusSearch(corpus)


class LabelScreen(QueryActions, FactActions, Navigation, SpanEvents, QuerySwitching):
    """Label queries: pick one on the left, draw its evidence on the right."""

    CSS_PATH = LABEL_STYLESHEET
    OWN_BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+f", "search", "Search"),
        Binding("E", "suggest", "Suggest evidence", show=False),
        Binding("e", "edit", "Edit"),
        Binding("S", "cycle_status", "Status"),
        Binding("B", "cycle_status(True)", "Status back", show=False),
        Binding(
            "L",
            "label_empty",
            "Label empty",
            show=False,
            tooltip="Mark a draft labelled with no evidence and no abstention (asks first)",
        ),
        Binding("T", "transitions", "Transitions to label", show=False),
        Binding("p", "pattern", "Pattern", show=False),
        Binding("l", "slices", "Slices", show=False),
        # Not in the footer (every editor's key): at 80 columns `? Keys` then stays on it.
        Binding("ctrl+z", "undo", "Undo", show=False, tooltip="Undo (a run of moves: one step)"),
        Binding("ctrl+y", "redo", "Redo", show=False),
        Binding("o", "open_document", "Docs"),
        Binding("A", "toggle_abstain", "Abstain", show=False),
        Binding("ctrl+n", "new", "New query", show=False),
        Binding("ctrl+d", "duplicate", "Duplicate query", show=False),
        Binding("D", "delete_query", "Delete query", show=False),
        Binding("slash", "find", "Find in document", show=False),
        Binding("g", "go_to", "Go to offset", show=False),
        Binding("f", "filter", "Filter queries", show=False),
        Binding("v", "toggle_versions", "Per-annotator view", show=False),
        Binding("J", "next_query(1)", "Next query", show=False),
        Binding("K", "next_query(-1)", "Previous query", show=False),
        Binding("U", "next_unlabelled", "Next unlabelled", show=False),
        Binding("R", "agreement", "Adjudicate", show=False),
        Binding(
            "F",
            "facts",
            "Facts: the selection as one, or the list",
            show=False,
            tooltip="Facts the answer must state: with a selection, add it as one; without, "
            "list them to type, give alternatives (a) and delete (x)",
        ),
        Binding(
            "plus",
            "add_alternative",
            "Add as alternative",
            show=False,
            tooltip="Add the selection as an alternative of the last span visited (either will "
            "do); alternatives are drawn bold, double-underlined, on their own shade",
        ),
    ]
    """The screen's own keys, as the help lists them."""
    BINDINGS: ClassVar[list[BindingType]] = [
        *OWN_BINDINGS,
        *elsewhere_bindings(DocumentView.BINDINGS, OWN_BINDINGS),
    ]
    """With, hidden, the document's keys for when the focus is elsewhere (`elsewhere`)."""

    async def action_elsewhere(self, action: str) -> None:
        """A document key pressed outside the document: act there, or say where it acts."""
        if self.view.has_focus:  # the view's own binding passed it on (nothing to do there)
            return
        if action_name(action) in WHERE:
            self.notify(WHERE[action_name(action)], title=WHERE_TITLE, markup=False)
            return
        self.view.focus()
        await self.app.run_action(action, self.view)

    def focus_note(self) -> str:
        """Which part of the screen has the focus, for the help's first line."""
        focused = self.focused
        return focus_note(focused.id or "" if focused is not None else "")

    def _lazy_index(self, corpus: Corpus) -> Callable[[], CorpusSearch]:
        return cache(lambda: search_index(corpus))

    def compose(self) -> ComposeResult:
        with Horizontal(id="label-body"):
            with Vertical(id="queries-pane"):
                yield Label(id="list-title")
                yield Field(placeholder="filter: words s:draft p:control", id="filter")
                yield QueryList(id="queries")
            with Vertical(id="document-pane"):
                yield QueryPanel(id="query-panel")
                yield CursorBar(id="cursor-bar")
                yield DocumentView(id="document")
        yield Footer()

    def palette_commands(self) -> Iterable[SystemCommand]:
        """The label screen's entries in the command palette, from `PALETTE`."""
        for action, title, text in PALETTE:
            owner, _, name = action.rpartition(".")
            target = self.view if owner == "view" else self
            yield SystemCommand(title, text, getattr(target, f"action_{name}"))

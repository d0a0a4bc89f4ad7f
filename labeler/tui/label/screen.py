"""The label screen: the query list beside the document view, and every labelling key.

The screen is the only place that turns what the user asked for (widget messages, keys)
into edits, through the `Editor`, and then sets what the widgets show. Widgets never meet
the store and never call each other. The list shows its first page at once; a worker
reads the rest of the rows a chunk at a time, yielding to Textual between chunks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Label

from labeler.core.corpus import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.store.conflicts import ConflictError
from labeler.core.values import Boundary, Query, Status
from labeler.tui.label.conflict import Choice, ConflictScreen
from labeler.tui.label.document_picker import DocumentPicker
from labeler.tui.label.editor import Editor
from labeler.tui.label.filters import QueryFilter
from labeler.tui.label.panels import CursorBar, QueryPanel, cursor_line
from labeler.tui.label.query_form import QueryFields, QueryForm
from labeler.tui.label.query_list import QueryList
from labeler.tui.label.quick_fields import PatternPicker, SlicePrompt
from labeler.tui.label.resume import Resume
from labeler.tui.label.state import LabelState, RowLoader
from labeler.tui.label.suggest_screen import Picked, Suggestions
from labeler.tui.label.undo import Edit, Focus
from labeler.tui.messages import AgreementRequested, CorpusChanged, LabelsChanged
from labeler.tui.screens.dialogs import ConfirmScreen, PromptScreen
from labeler.tui.settings import Field, settings_of
from labeler.tui.widgets.document_view import DocumentView

if TYPE_CHECKING:  # corpus search (rapidfuzz) loads on the first ^f, not with the app
    from labeler.tui.label.corpus_search import CorpusSearch, Hit

STATUS_CYCLE = {Status.DRAFT: Status.LABELLED, Status.LABELLED: Status.REVIEWED}
"""What `S` moves a status to (reviewed goes back to draft)."""
DONE = {"undo": "Undone", "redo": "Redone"}
"""What the toast after an undo or a redo starts with."""
PALETTE = (
    ("view.add", "Add span", "Add the selection as evidence of the current query"),
    ("view.drop", "Delete span", "Delete the span under the cursor"),
    ("edit", "Edit query", "Text, pattern, slices, abstain, notes, status"),
    ("pattern", "Pattern", "Set the query's boundary pattern"),
    ("slices", "Slices", "Edit the query's slices, completed from those in use"),
    ("cycle_status", "Status", "Move the status on: draft, labelled, reviewed"),
    ("toggle_abstain", "Abstain", "Mark the query as having no evidence (or not)"),
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


class LabelScreen(Screen[None]):
    """Label queries: pick one on the left, draw its evidence on the right."""

    CSS_PATH = LABEL_STYLESHEET
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+f", "search", "Search"),
        Binding("E", "suggest", "Suggest evidence", show=False),
        Binding("e", "edit", "Edit"),
        Binding("S", "cycle_status", "Status"),
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
    ]

    def __init__(
        self, editor: Editor, *, query_id: str | None = None, prefs: Path | None = None
    ) -> None:
        super().__init__()
        self.editor = editor
        self.state = LabelState(editor)
        """Queries, the current one, the filter and the span index."""
        self._resume = Resume(prefs, editor.store.path, editor.annotator)
        self._place = None if query_id else self._resume.place(editor.store)
        self.state.current = query_id or (self._place.query if self._place else None)
        self._here: tuple[str | None, int] = (None, 0)
        """The document and cursor offset now, for the place kept at exit."""
        self._needle = ""
        self._shown_id: str | None = None
        """The query the panel and marks last showed; a change of it drops the selection."""
        self._reading = False
        self._stale = False
        corpus = editor.corpus
        self._searcher: Callable[[], CorpusSearch] = cache(lambda: search_index(corpus))
        self.suggestions = Suggestions(corpus)
        """Suggested evidence: its sentence index and vectors, built on the first `E`."""

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

    @property
    def current(self) -> str | None:
        """The query being labelled (set it before mounting to open the screen on one)."""
        return self.state.current

    @current.setter
    def current(self, query_id: str | None) -> None:
        self.state.current = query_id

    @property
    def view(self) -> DocumentView:
        return self.query_one(DocumentView)

    @property
    def query_list(self) -> QueryList:
        return self.query_one(QueryList)

    def on_mount(self) -> None:
        complete = self.state.first_page()
        self._fill_list()
        self._show_current()
        self._go_to_place()
        self.query_list.focus()
        if not complete:  # the rest once the first page is on screen
            self._reading = True
            self.call_after_refresh(self._load_rows, self.state.loader())

    def _go_to_place(self) -> None:
        """Back where the annotator left off: that document, at that offset."""
        place, self._place = self._place, None
        if place is None or place.doc is None or place.doc not in self.editor.corpus:
            return
        self.open_document(place.doc)
        self.view.go_to(min(place.offset, len(self.view.text)))

    def _keep_place(self) -> None:
        if self.state.current is not None:
            self._resume.keep(self.state.current, *self._here)

    def on_unmount(self) -> None:
        """The app is closing: remember the place (the widgets are gone; `_here` is not)."""
        self._keep_place()

    # -- showing -----------------------------------------------------------------------------

    def reload(self) -> None:
        """Show others' changes: the queries their logged edits touched, else every row.

        Every row is read in one step when they fit in a chunk, else by a worker while the
        old rows stay shown; a change arriving meanwhile is caught up once it is done.
        """
        shown = self.state.shown
        self.state.forget()
        if shown is not None:
            self._explain(shown)
        if self.state.catch_up():
            self._fill_list()
            self._show_current()
            return
        self._show_current()
        if self._reading:
            self._stale = True
            return
        loader = self.state.loader()
        if loader.step():
            self._adopt(loader)
        else:
            self._reading = True
            self._load_rows(loader)

    def _explain(self, shown: Query) -> None:
        """Someone else deleted the query on screen or took spans from it: say who, drop the
        selection and (deleted) make no other query current, so the next key edits nothing."""
        store = self.editor.store
        try:
            now: Query | None = store.query(shown.id)
        except SpanlabError:
            now = None
        if now is not None and set(_places(shown)) <= set(_places(now)):
            return  # nothing of what was on screen went away: spans added are just shown
        self.view.clear_selection()
        if now is None:
            self.state.current, self.state.lost = None, shown.id
            by = store.deleted_by(shown.id)
            who = f" by {by[0]} at {by[1][:19].replace('T', ' ')} UTC" if by else ""
            said = f"{shown.id} was deleted{who}. Nothing is selected: pick a query."
            self.notify(said, title="Query deleted", severity="warning", timeout=10, markup=False)
            return
        said = _replaced(shown, now, store.last_event(shown.id))
        self.notify(said, title="Evidence changed", severity="warning", timeout=10, markup=False)

    @work(exclusive=True, group="query-rows")
    async def _load_rows(self, loader: RowLoader) -> None:
        while not loader.step():
            await asyncio.sleep(0)  # let keys and repaints through between chunks
        self._adopt(loader)

    def _adopt(self, loader: RowLoader) -> None:
        self._reading = False
        self.state.adopt(loader)
        self._fill_list()
        self._show_current()
        if self._stale:
            self._stale = False
            self.reload()

    def on_labels_changed(self, event: LabelsChanged) -> None:
        self.reload()

    def on_corpus_changed(self, event: CorpusChanged) -> None:
        """The folder changed: draw the document as it is now, at the same offset."""
        corpus = event.corpus
        self._searcher = cache(lambda: search_index(corpus))
        self.suggestions.corpus = corpus
        doc, cursor = self.view.doc_id, self.view.cursor
        if doc is not None and doc in event.documents:
            if doc in corpus:
                self.view.load(doc, corpus.text(doc))
                self.view.go_to(min(cursor, len(corpus.text(doc))))
            elif len(corpus):
                self.view.load(next(iter(corpus)).id, next(iter(corpus)).text)
        self.reload()

    def _fill_list(self, *, pin: bool = True) -> bool:
        shown, moved = self.state.listed(pin=pin)
        self.query_list.show(shown, self.state.current)
        state, me = self.state, self.editor.annotator
        total = f"{len(shown)}/{state.total}" if state.complete else f"reading {state.total}"
        self.query_one("#list-title", Label).update(f"{total} queries · {me}")
        return moved

    def _refresh_query(self, query_id: str | None) -> None:
        """Redraw what shows one query after our own edit."""
        if query_id is None:
            return
        old, new = self.state.refresh(query_id)
        if old is not None and new is not None:
            self.query_list.refresh_query(new)
        else:
            self._fill_list()
        self._show_current()

    def _show_current(self) -> None:
        q = self.state.current_query
        if self.state.current != self._shown_id:  # every path to another query passes here
            self._shown_id = self.state.current
            self.view.clear_selection()  # a selection belongs to the query it was made on
        hidden = self.state.total if q is None and not self.query_list.ids else 0
        self.query_one(QueryPanel).show(q, self.editor.annotator, hidden, self.state.lost)
        if self.view.doc_id is None and len(self.editor.corpus):
            first = self.state.first_span(None)
            self.open_document(first.doc if first else next(iter(self.editor.corpus)).id)
            if first is not None:
                self.view.go_to(first.start)
        self._refresh_marks()

    def _refresh_marks(self) -> None:
        if self.view.doc_id is not None:
            self.view.set_marks(self.state.marks(self.view.doc_id))
            self._update_cursor_bar(self.view.cursor, self.view.selection)

    def open_document(self, doc: str) -> None:
        if doc != self.view.doc_id:
            self.view.load(doc, self.editor.corpus.text(doc))
        self._refresh_marks()

    def _goto_first_span(self) -> None:
        """Show the current query's evidence: its first span here, else its first anywhere."""
        first = self.state.first_span(self.view.doc_id)
        if first is not None:
            self.open_document(first.doc)
            self.view.go_to(first.start)

    def _select(self, query_id: str) -> None:
        self.state.current, self.state.lost = query_id, None
        self._refresh_query(query_id)
        self._fill_list()
        self._goto_first_span()

    def on_query_list_highlighted(self, event: QueryList.Highlighted) -> None:
        self.state.lost = None
        if event.query_id != self.state.current:
            self.state.current = event.query_id
            self._show_current()
            self._goto_first_span()
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

    def palette_commands(self) -> Iterable[SystemCommand]:
        """The label screen's entries in the command palette, from `PALETTE`."""
        for action, title, text in PALETTE:
            owner, _, name = action.rpartition(".")
            target = self.view if owner == "view" else self
            yield SystemCommand(title, text, getattr(target, f"action_{name}"))

    # -- the filter ------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != "filter":
            return
        try:
            self.state.filter = QueryFilter.parse(event.value)
        except SpanlabError as exc:
            self.query_one("#list-title", Label).update(f"[b red]{exc.message}[/]")
            return
        if self._fill_list(pin=False):
            self._show_current()
            self._goto_first_span()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            self.query_list.focus()

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    # -- document view messages --------------------------------------------------------------

    def _update_cursor_bar(self, offset: int, selection: tuple[int, int] | None) -> None:
        view = self.view
        span = self.state.span_number(view.doc_id, offset)
        legend = self.state.legend()
        line = cursor_line(view.doc_id, offset, len(view.text), selection, legend, span)
        self.query_one(CursorBar).update(line)

    def on_document_view_cursor_moved(self, event: DocumentView.CursorMoved) -> None:
        self._here = (self.view.doc_id, event.offset)
        self._update_cursor_bar(event.offset, event.selection)

    def _edit(
        self,
        do: Callable[[], object],
        query_id: str | None,
        reapply: Callable[[], object] | None = None,
    ) -> bool:
        """Run one edit; a refused edit becomes a notification and changes nothing.

        A conflict (someone changed what it was based on) asks: reload, or `reapply`.
        """
        self.editor.warning = None
        try:
            do()
        except ConflictError as exc:
            self._conflict(exc, query_id, reapply)
            return False
        except SpanlabError as exc:
            self.notify(exc.message, title="Not saved", severity="error")
            return False
        self._refresh_query(query_id)
        if self.editor.warning:
            self.notify(self.editor.warning, title="Overlapping spans", severity="warning")
        if self.editor.relabelled:
            self.notify(self.editor.relabelled, title="Review taken back", severity="warning")
            self.editor.relabelled = None
        return True

    def _conflict(
        self, exc: ConflictError, query_id: str | None, reapply: Callable[[], object] | None
    ) -> None:
        def chosen(choice: Choice | None) -> None:
            if choice == "reapply" and reapply is not None:
                self._edit(reapply, query_id)
            self.reload()

        self.app.push_screen(ConflictScreen(exc.message, reapply=reapply is not None), chosen)

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

    def on_document_view_edges_changed(self, event: DocumentView.EdgesChanged) -> None:
        move, seen = self.editor.move_span, self._seen_edges(event.span_id)
        self._edit(
            lambda: move(event.span_id, event.start, event.end, seen=seen),
            self.state.current,
            lambda: move(event.span_id, event.start, event.end),
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

    # -- query actions -----------------------------------------------------------------------

    def action_edit(self) -> None:
        q = self.state.current_query
        if q is None:
            return
        form = QueryForm(f"Edit {q.id}", QueryFields.of(q), has_evidence=bool(q.evidence))

        def save(fields: QueryFields | None) -> None:
            if fields is not None:
                self._save(q, fields.changes())

        self.app.push_screen(form, save)

    def _save(self, seen: Query, changes: dict[str, object]) -> None:
        """Save the fields that differ from what was shown; a conflict asks what to do."""
        changed = {k: v for k, v in changes.items() if getattr(seen, k) != v}
        self._edit(
            lambda: self.editor.update_query(seen.id, seen=seen, **changed),
            seen.id,
            lambda: self.editor.reapply(seen.id, changed),
        )

    def action_pattern(self) -> None:
        q = self.state.current_query
        if q is not None:
            self.app.push_screen(PatternPicker(q.id, q.boundary), self._saver(q, "boundary"))

    def action_slices(self) -> None:
        q = self.state.current_query
        if q is not None:
            known = self.editor.store.slices_in_use()
            self.app.push_screen(SlicePrompt(q.id, q.slices, known), self._saver(q, "slices"))

    def _saver(self, seen: Query, name: str) -> Callable[[object | None], None]:
        """Save one field as the dialog returns it (None: cancelled), against `seen`."""

        def save(value: object | None) -> None:
            if value is not None:
                self._save(seen, {name: value})

        return save

    def action_new(self) -> None:
        blank = QueryFields("", Boundary.OTHER, (), Status.DRAFT, False, "")

        def create(fields: QueryFields | None) -> None:
            if fields is None:
                return
            made: list[Query] = []
            changes = fields.changes()
            text = str(changes.pop("text"))
            self._edit(lambda: made.append(self.editor.add_query(text, **changes)), None)
            if made:
                self._select(made[0].id)

        self.app.push_screen(QueryForm("New query", blank), create)

    def action_duplicate(self) -> None:
        current = self.state.current
        if current is None:
            return
        made: list[Query] = []
        self._edit(lambda: made.append(self.editor.duplicate_query(current)), None)
        if made:
            self._select(made[0].id)
            self.notify(f"Duplicated as {made[0].id}.", timeout=2)

    def action_delete_query(self) -> None:
        q = self.state.current_query
        if q is None:
            return
        neighbour = self.state.neighbour(self.query_list.ids, q.id)

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            self.state.current = neighbour  # stay where we were in the list
            if not self._edit(lambda: self.editor.delete_query(q.id, seen=q), q.id):
                self.state.current = q.id
            self._fill_list()
            self._show_current()
            self._goto_first_span()

        question = f"Delete {q.id} and its {len(q.evidence)} spans? (ctrl+z undoes it)"
        self.app.push_screen(ConfirmScreen(question), answer)

    def action_cycle_status(self) -> None:
        q = self.state.current_query
        if q is not None:
            then = STATUS_CYCLE.get(q.status, Status.DRAFT)
            blind = self.editor.store.view and then is Status.REVIEWED  # a reviewer decides
            self._save(q, {"status": Status.DRAFT if blind else then})

    def action_toggle_abstain(self) -> None:
        q = self.state.current_query
        if q is not None:
            self._save(q, {"abstain": not q.abstain})

    def action_toggle_versions(self) -> None:
        self.state.by_annotator = not self.state.by_annotator
        self._refresh_marks()

    # -- undo --------------------------------------------------------------------------------

    def _replay(self, step: Callable[..., tuple[Edit, Focus] | None], verb: str) -> None:
        """`verb` is "undo" or "redo"; the toast after it says "Undone: …" or "Redone: …"."""
        try:
            done = step()
        except ConflictError as exc:
            self._replay_conflict(exc, step, verb)
            return
        except SpanlabError as exc:
            self.notify(exc.message, title=f"Cannot {verb}", severity="error")
            self.reload()
            return
        if done is None:
            self.notify(f"Nothing to {verb}.", timeout=2)
            return
        edit, focus = done
        self.state.refresh(focus.query_id)
        if focus.query_id in self.state.queries:
            self.state.current = focus.query_id
        self._fill_list()
        self._show_current()
        if focus.doc is not None and focus.doc in self.editor.corpus:
            self.open_document(focus.doc)
            self.view.go_to(focus.offset or 0)
        self.notify(f"{DONE[verb]}: {edit.label}", timeout=2)

    def _replay_conflict(
        self, exc: ConflictError, step: Callable[..., tuple[Edit, Focus] | None], verb: str
    ) -> None:
        """Undo would revert someone else's edit: reload (and drop it), or force it."""

        def chosen(choice: Choice | None) -> None:
            if choice == "reapply":
                self._replay(lambda: step(force=True), verb)
                return
            self.editor.history.discard(verb)
            self.reload()

        self.app.push_screen(ConflictScreen(exc.message, verb=verb), chosen)

    def action_undo(self) -> None:
        self._replay(self.editor.undo, "undo")

    def action_redo(self) -> None:
        self._replay(self.editor.redo, "redo")

    # -- navigation dialogs --------------------------------------------------------------------

    def action_search(self) -> None:
        def jump(hit: Hit | None) -> None:
            if hit is not None:
                self.open_document(hit.doc)
                self.view.select(hit.start, hit.end)
                self.view.focus()

        from labeler.tui.label.search_screen import SearchScreen

        self.app.push_screen(SearchScreen(self._searcher), jump)  # empty: the person types

    def action_suggest(self) -> None:
        """Sentences likely to hold the current query's answer: accept one, or look at it."""
        q = self.state.current_query
        if q is None:
            self.notify("Pick or create a query first (ctrl+n).", severity="warning")
            return
        settings = settings_of(self.app)
        screen = self.suggestions.screen(q.id, q.text, settings.suggest_embedding,
                                         settings.embedding_cache)  # fmt: skip
        self.app.push_screen(screen, self._picked(q.id))

    def _picked(self, query_id: str) -> Callable[[Picked | None], None]:
        def picked(p: Picked | None) -> None:
            if p is None:
                return
            s = p.suggestion
            self.open_document(s.doc)
            if not p.accept:
                self.view.select(s.start, s.end)
            elif self._edit(lambda: self.editor.add_span(query_id, s.doc, s.start, s.end),
                            query_id):  # fmt: skip
                self.view.go_to(s.start)
            self.view.focus()

        return picked

    def action_open_document(self) -> None:
        mine, total = self.state.span_counts()
        docs = [d.id for d in self.editor.corpus]

        def open_doc(doc: str | None) -> None:
            if doc is not None:
                self.open_document(doc)
                self.view.focus()

        self.app.push_screen(DocumentPicker(docs, mine, total), open_doc)

    def action_find(self) -> None:
        def find(needle: str | None) -> None:
            if needle:
                self._needle = needle
                if not self.view.find(needle):
                    self.notify(f"No {needle!r} in this document.", timeout=2)
                self.view.focus()

        self.app.push_screen(PromptScreen("Find in document", self._needle), find)

    def action_go_to(self) -> None:
        def go(typed: str | None) -> None:
            digits = (typed or "").replace(",", "").replace("_", "").replace(" ", "")
            if not digits:
                return
            offset, end = int(digits), len(self.view.text)
            if offset > end:
                self.notify(f"{self.view.doc_id} holds {end:,} code points: went to its end",
                            title="Go to offset", severity="warning")  # fmt: skip
            self.view.go_to(min(offset, end))
            self.view.focus()

        prompt = PromptScreen("Go to offset (as the cursor bar shows it)", restrict=r"[0-9,_ ]*")
        self.app.push_screen(prompt, go)


def _places(q: Query) -> list[tuple[str, int, int]]:
    return sorted((s.doc, s.start, s.end) for s in q.evidence)


def _replaced(
    shown: Query, now: Query, last: tuple[str, str, str, dict[str, object]] | None
) -> str:
    """What someone else did to the evidence on screen: whose spans went, who did it."""
    kept = set(_places(now))
    gone = [s for s in shown.evidence if (s.doc, s.start, s.end) not in kept]
    whose = sorted({s.annotator or "unknown" for s in gone})
    kind = "import" if last and last[1] == "query-replaced" else "edit"
    by = f"{last[0]}'s {kind}" if last else "another writer"
    what = f"removed {len(gone)} span(s) of {', '.join(whose)}"
    spans = f"it has {len(now.evidence)} span(s) now"
    return f"{shown.id}: {by} {what}; {spans}. Your selection was cleared."

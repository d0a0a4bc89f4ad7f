"""What the label screen shows and how it stays current: the list, the panel, the marks.

The base of the label screen: its state, the edit funnel every key goes through, and the
live reload when others' writes or the corpus change under it. The keys live in siblings.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.screen import Screen
from textual.worker import get_current_worker

from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown as displayed
from labeler.core.errors import SpanlabError
from labeler.core.store.conflicts import ConflictError
from labeler.core.values import Query
from labeler.tui.label.conflict import Choice, ConflictScreen
from labeler.tui.label.editor import Editor
from labeler.tui.label.panels import (
    CursorBar,
    ListTitle,
    QueryPanel,
    count_forms,
    cursor_line,
    progress_forms,
)
from labeler.tui.label.query_list import QueryList
from labeler.tui.label.resume import Resume
from labeler.tui.label.state import (
    PAGE,
    LabelState,
    RowLoader,
    collector_paused,
    rows_settled,
)
from labeler.tui.label.suggest_screen import Suggestions
from labeler.tui.label.transitions_screen import TransitionPlace
from labeler.tui.messages import CorpusChanged, LabelsChanged
from labeler.tui.settings import settings_of
from labeler.tui.widgets.document_view import DocumentView

if TYPE_CHECKING:  # corpus search (rapidfuzz) loads on the first ^f, not with the app
    from labeler.tui.label.corpus_search import CorpusSearch


class ShowingScreen(Screen[None]):
    """The label screen's state and drawing; `LabelScreen` adds the keys."""

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
        self._progress: tuple[str, ...] = ("counting…",)
        """The list title's second line, its forms: queue done, today, pace."""
        self._listed = 0
        """Queries the list shows (the filter's)."""
        self._shown_id: str | None = None
        """The query the panel and marks last showed; a change of it drops the selection."""
        self._reading = False
        self._stale = False
        corpus = editor.corpus
        self._searcher: Callable[[], CorpusSearch] = self._lazy_index(corpus)
        self.suggestions = Suggestions(corpus)
        """Suggested evidence: its sentence index and vectors, built on the first `E`."""
        self.transition_place = TransitionPlace()
        """Where the cursor was in the last `T` list: the next opens there."""

    def _lazy_index(self, corpus: Corpus) -> Callable[[], CorpusSearch]:
        """The corpus search index of `corpus`, built on first call (`LabelScreen` says how)."""
        raise NotImplementedError

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
        self._count_progress()
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

    def reload(self) -> None:
        """Show others' changes: the queries their logged edits touched, else every row.

        Every row is read in one step when they fit in a chunk, else by a worker while the
        old rows stay shown; a change arriving meanwhile is caught up once it is done.
        """
        shown = self.state.shown
        self.state.forget()
        self._count_progress()
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
        with collector_paused():
            while not loader.step():
                await asyncio.sleep(0)  # let keys and repaints through between chunks
        self._adopt(loader)

    def _adopt(self, loader: RowLoader) -> None:
        self._reading = False
        self.state.adopt(loader)
        if len(loader.rows) > PAGE:  # a few rows are no walk (and tests make many apps)
            rows_settled()
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
        self._searcher = self._lazy_index(corpus)
        self.suggestions.corpus = corpus
        doc, cursor = self.view.doc_id, self.view.cursor
        if doc is not None and doc in event.documents:
            if doc in corpus:
                self.view.load(doc, corpus.text(doc))
                self.view.go_to(min(cursor, len(corpus.text(doc))))
            else:
                self._document_gone(doc, corpus)
        self.reload()

    def _document_gone(self, doc: str, corpus: Corpus) -> None:
        """The open document was deleted from the folder: show another, and say so."""
        other = next(iter(corpus), None)
        if other is not None:
            self.view.load(other.id, other.text)
        then = f"showing {displayed(other.id)}" if other else "no document is left to show"
        self.notify(f"{displayed(doc)} was removed from the corpus folder: {then}",
                    title="Corpus", severity="warning")  # fmt: skip

    def _fill_list(self, *, pin: bool = True) -> bool:
        shown, moved = self.state.listed(pin=pin)
        self.query_list.show(shown, self.state.current)
        self._listed = len(shown)
        self._title()
        return moved

    def _title(self) -> None:
        state, me = self.state, self.editor.annotator
        total = state.total
        counts = count_forms(self._listed, total, me) if state.complete else count_forms(
            total, None, me)  # fmt: skip
        self.query_one("#list-title", ListTitle).show(counts, self._progress)

    def _count_progress(self) -> None:
        """The annotator's queue done, queries edited today (UTC, by the app's clock) and the
        pace between: at once for a store of a page or less, else by a thread (the count
        scans every query: 0.1–0.7 s at 100,000, which neither the first paint nor a key
        should wait for), the last figures shown meanwhile."""
        day = settings_of(self.app).clock().astimezone(UTC).strftime("%Y-%m-%d")
        if self.state.total <= PAGE:
            self._show_progress(self.editor.store.progress(self.editor.annotator, day))
        else:
            self._count_apart(self.editor.annotator, day)

    @work(thread=True, exclusive=True, group="progress", exit_on_error=False)
    def _count_apart(self, annotator: str, day: str) -> None:
        figures = self.editor.store.progress(annotator, day, apart=True)
        if not get_current_worker().is_cancelled:  # a later count was asked for
            self.app.call_from_thread(self._show_progress, figures)

    def _show_progress(self, figures: tuple[int, int, int, float | None]) -> None:
        self._progress = progress_forms(*figures)
        if self.is_mounted:
            self._title()

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
            # a selection belongs to the query it was made on
            self.view.clear_selection(
                f"The query changed to {self.state.current}: its selection was dropped."
            )
        hidden = self.state.total if q is None and not self.query_list.ids else 0
        self.query_one(QueryPanel).show(q, self.editor.annotator, hidden, self.state.lost)
        if self.view.doc_id is None and len(self.editor.corpus):
            first = self.state.first_span(None)
            self.open_document(first.doc if first else next(iter(self.editor.corpus)).id)
            if first is not None:
                self.view.go_to(first.start)
        self._refresh_marks()

    def _refresh_marks(self) -> None:
        doc = self.view.doc_id
        if doc is None:
            return
        if self.state.knows_others(doc):
            self.view.set_marks(self.state.marks(doc))
        else:  # the current query's marks in this frame; the others' (a store read, 5–10 ms
            # at 1,000 spans a document) once it is drawn, so a switch costs one frame
            self.view.set_marks(self.state.marks(doc, others=False))
            self.call_after_refresh(self._others_marks, doc)
        self._update_cursor_bar(self.view.cursor, self.view.selection)

    def _others_marks(self, doc: str) -> None:
        if self.is_mounted and self.view.doc_id == doc and not self.state.knows_others(doc):
            self.view.set_marks(self.state.marks(doc))

    def open_document(self, doc: str) -> None:
        if doc != self.view.doc_id:
            self.view.load(doc, self.editor.corpus.text(doc))
        self._refresh_marks()

    def _goto_first_span(self) -> None:
        """Show the current query's evidence: its first span here, else its first anywhere."""
        first = self.state.first_span(self.view.doc_id)
        if first is not None:
            if first.doc != self.view.doc_id:  # else its marks are the ones just drawn
                self.open_document(first.doc)
            self.view.go_to(first.start)

    def _select(self, query_id: str) -> None:
        self.state.current, self.state.lost = query_id, None
        self._refresh_query(query_id)
        self._fill_list()
        self._goto_first_span()

    def _at_cursor(self, offset: int, selection: tuple[int, int] | None) -> None:
        """The view's cursor is at `offset`: remember the place and say it in the bar."""
        self._here = (self.view.doc_id, offset)
        self.state.visit(self.view.doc_id, offset)
        self._update_cursor_bar(offset, selection)

    def _update_cursor_bar(self, offset: int, selection: tuple[int, int] | None) -> None:
        view = self.view
        span = self.state.span_number(view.doc_id, offset)
        legend = self.state.legend()
        group = self.state.span_group(span[0]) if span else None
        doc, length = view.doc_id, len(view.text)
        start, end = selection or (offset, offset + 1)
        source = self.editor.corpus.place(doc, start, end) if doc else ""  # §22: its page
        self.query_one(CursorBar).show(
            lambda width: cursor_line(
                doc, offset, length, selection, legend, span, group, width=width, source=source
            )
        )

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
        self._count_progress()
        self._refresh_query(query_id)
        if self.editor.warning:
            self.notify(self.editor.warning, title="Overlapping spans", severity="warning")
        if self.editor.relabelled:
            self.notify(self.editor.relabelled, title="Status changed", severity="warning")
            self.editor.relabelled = None
        decided = self.editor.store.decision_on(query_id) if query_id else None
        if decided is not None and self.editor.store.view:  # a version beside a decision (§21)
            self.notify(decided, title="Already decided", severity="information", timeout=8,
                        markup=False)  # fmt: skip
        return True

    def _conflict(
        self, exc: ConflictError, query_id: str | None, reapply: Callable[[], object] | None
    ) -> None:
        def chosen(choice: Choice | None) -> None:
            if choice == "reapply" and reapply is not None:
                self._edit(reapply, query_id)
            self.reload()

        self.app.push_screen(ConflictScreen(exc.message, reapply=reapply is not None), chosen)


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

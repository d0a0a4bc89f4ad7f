"""The dialogs that move the view: corpus search, suggested evidence, documents, find, go to.

They open a document and select or go somewhere in it; only an accepted suggestion edits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from labeler.tui.label.document_picker import DocumentPicker
from labeler.tui.label.suggest_screen import Picked
from labeler.tui.screens.dialogs import PromptScreen
from labeler.tui.settings import settings_of

if TYPE_CHECKING:  # corpus search (rapidfuzz) loads on the first ^f, not with the app
    from labeler.tui.label.corpus_search import Hit
from labeler.tui.label.showing import ShowingScreen


class Navigation(ShowingScreen):
    """Dialogs that open a document or move in it."""

    def action_search(self) -> None:
        def jump(hit: Hit | None) -> None:
            if hit is not None:
                self.open_document(hit.doc)
                self.view.select(*(hit.sentence or (hit.start, hit.end)))
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

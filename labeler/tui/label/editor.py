"""Every edit the labelling app makes, each committed by the store and recorded for undo.

Screens call these methods instead of the store, so no edit can skip the history, and
widgets never see either. Methods raise the store's errors unchanged; the screen turns
them into a notification.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from labeler.core.corpus import Corpus
from labeler.core.errors import StoreError
from labeler.core.graphemes import snap, whole_clusters
from labeler.core.store import Store
from labeler.core.values import Query, Span
from labeler.tui.label.undo import (
    Edit,
    Focus,
    History,
    QueryAdded,
    QueryChanged,
    QueryDeleted,
    Replay,
    SpanAdded,
    SpanDeleted,
    SpanMoved,
)


class Editor:
    """The store, the corpus and the annotator's name, with an undo history."""

    def __init__(self, store: Store, corpus: Corpus, annotator: str) -> None:
        self.store = store
        self.corpus = corpus
        self.annotator = annotator
        """Whose name goes on every edit."""
        self.history = History(Replay(store, corpus.text, annotator))

    def add_span(self, query_id: str, doc: str, start: int, end: int) -> Span:
        """Add evidence; edges that fall inside a character widen to take it whole (§13)."""
        text = self.corpus.text(doc)
        start, end = whole_clusters(text, start, end)
        span = Span.from_text(text, doc, start, end, annotator=self.annotator)
        saved = self.store.add_span(query_id, span, text, annotator=self.annotator)
        self.history.record(SpanAdded(query_id, saved))
        return saved

    def move_span(self, span_id: int, start: int, end: int) -> Span:
        """Move a span's edges, keeping its id (and its original annotator); an edge that
        lands inside a character goes on past it, the way it was moving (§13)."""
        query_id, old = self.store.span(span_id)
        text = self.corpus.text(old.doc)
        start = snap(text, start, forward=start > old.start)
        end = snap(text, end, forward=end >= old.end)
        if (old.start, old.end) == (start, end):
            return old
        new = self.store.update_span(span_id, start, end, text, annotator=self.annotator)
        edges = (new.start, new.end)
        self.history.record(SpanMoved(query_id, span_id, old.doc, (old.start, old.end), edges))
        return new

    def delete_span(self, span_id: int) -> tuple[str, Span]:
        query_id, old = self.store.delete_span(span_id, annotator=self.annotator)
        self.history.record(SpanDeleted(query_id, old))
        return query_id, old

    def add_query(self, text: str, **fields: Any) -> Query:
        query = self.store.add_query(text, annotator=self.annotator, **fields)
        self.history.record(QueryAdded(query))
        return query

    def duplicate_query(self, query_id: str) -> Query:
        """A copy of a query under the next id, evidence included, in your name."""
        old = self.store.query(query_id)
        spans = tuple(replace(s, id=None, annotator=self.annotator) for s in old.evidence)
        copy = replace(old, id=self.store.next_query_id(), annotator=self.annotator)
        texts = {s.doc: self.corpus.text(s.doc) for s in spans}
        made = self.store.restore_query(
            replace(copy, evidence=spans), texts, annotator=self.annotator
        )
        self.history.record(QueryAdded(made))
        return made

    def update_query(self, query_id: str, **changes: Any) -> Query:
        """Change query fields; nothing is recorded when nothing differs."""
        old = self.store.query(query_id)
        changed = {k: v for k, v in changes.items() if getattr(old, k, v) != v}
        if not changed:
            return old
        new = self.store.update_query(query_id, annotator=self.annotator, **changed)
        before = {k: getattr(old, k) for k in changed}
        self.history.record(QueryChanged(query_id, before, changed))
        return new

    def delete_query(self, query_id: str) -> Query:
        old = self.store.delete_query(query_id, annotator=self.annotator)
        self.history.record(QueryDeleted(old))
        return old

    def undo(self) -> tuple[Edit, Focus] | None:
        return self._step(self.history.undo)

    def redo(self) -> tuple[Edit, Focus] | None:
        return self._step(self.history.redo)

    @staticmethod
    def _step(step: Callable[[], tuple[Edit, Focus] | None]) -> tuple[Edit, Focus] | None:
        try:
            return step()
        except sqlite3.Error as exc:  # a constraint another annotator's edit now breaks
            raise StoreError(f"cannot replay this edit: {exc}") from None

"""Every edit the labelling app makes, each committed by the store and recorded for undo.

Screens call these methods instead of the store, so no edit can skip the history, and
widgets never see either. Methods raise the store's errors unchanged; the screen turns
them into a notification.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.overlaps import describe
from labeler.core.store import Store
from labeler.core.text.graphemes import snap, whole_clusters
from labeler.core.text.ranges import trimmed
from labeler.core.values import Query, Span, Status
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
    Together,
)


class Editor:
    """The store, the corpus and the annotator's name, with an undo history."""

    def __init__(self, store: Store, corpus: Corpus, annotator: str, *, trim: bool = True) -> None:
        self.store = store
        self.corpus = corpus
        self.annotator = annotator
        """Whose name goes on every edit."""
        self.history = History(Replay(store, corpus.text, annotator))
        self.warning: str | None = None
        """What the last span edit should be flagged with (nesting, overlap), if anything."""
        self.trim = trim
        """Leave edge whitespace out of a span being added."""
        self.relabelled: str | None = None
        """Said after an edit that moved the status: a review taken back, or back to draft."""
        self.blocked: str | None = None
        """Why span edits are refused now (spans wait for review), None: they are not."""

    def use(self, corpus: Corpus, *, blocked: str | None) -> None:
        """The corpus read again: edits and undo work on its texts from now on."""
        self.corpus = corpus
        self.history.replay.text = corpus.text
        self.blocked = blocked

    def _check_open(self) -> None:
        if self.blocked is not None:
            raise StoreError(self.blocked, hint="ctrl+r: review them, then come back")

    def add_span(self, query_id: str, doc: str, start: int, end: int) -> Span:
        """Add evidence; edges that fall inside a character widen to take it whole (§13).

        Edge whitespace and newlines are left out (a span never starts or ends with them).
        The first span of a `draft` query moves it to `labelled`, in the same undo step.
        """
        self._check_open()
        text = self.corpus.text(doc)
        kept = whole_clusters(text, start, end)
        kept = trimmed(text, *kept) if self.trim else kept
        if kept[0] == kept[1]:
            raise LabelError("the selection holds only whitespace", file=doc, offset=start)
        start, end = kept
        span = Span.from_text(text, doc, start, end, annotator=self.annotator)
        before = self.store.query(query_id).status
        saved = self.store.add_span(query_id, span, text, annotator=self.annotator)
        self.history.record(self._relabelled(query_id, before, SpanAdded(query_id, saved)))
        self._flag(query_id, saved)
        return saved

    def add_alternative(
        self, of: Span, doc: str, start: int, end: int, *, seen_group: int | None
    ) -> Span:
        """Add the selection as an alternative of span `of` (either will do, §18); refused
        when its group is no longer `seen_group`, or the quotes are not copies."""
        self._check_open()
        text = self.corpus.text(doc)
        kept = whole_clusters(text, start, end)
        start, end = trimmed(text, *kept) if self.trim else kept
        span = Span.from_text(text, doc, start, end, annotator=self.annotator)
        assert of.id is not None, "a span on screen comes from the store"
        query_id, _ = self.store.live_span(of.id)
        saved = self.store.add_alternative(
            of.id, span, text, annotator=self.annotator, expected=(of.start, of.end),
            expected_group=seen_group,
        )  # fmt: skip
        self.history.record(SpanAdded(query_id, saved))
        return saved

    def _relabelled(self, query_id: str, before: Status, edit: Edit) -> Edit:
        """After an evidence edit: a draft's first span, or changed evidence under a review
        (the review no longer covers it), makes the query `labelled`, in the same undo step."""
        self.relabelled = None
        if before not in (Status.DRAFT, Status.REVIEWED):
            return edit
        now = self.store.query(query_id)
        self.store.update_query(
            query_id, annotator=self.annotator, seen=now, status=Status.LABELLED
        )
        if before is Status.REVIEWED:
            self.relabelled = f"{query_id} was reviewed; its evidence changed: labelled again"
        return Together(
            edit, QueryChanged(query_id, {"status": before}, {"status": Status.LABELLED})
        )

    def _flag(self, query_id: str, span: Span) -> None:
        """Say when a span just made nests in or overlaps another of its query (§3)."""
        self.warning = describe(query_id, span, self.store.overlapping(query_id, span))

    def move_span(
        self,
        span_id: int,
        start: int,
        end: int,
        *,
        seen: tuple[int, int] | None = None,
        nudge: bool = False,
    ) -> Span:
        """Move a span's edges, keeping its id (and its original annotator).

        `seen` is the edges the screen showed: refused if someone moved them since. An edge
        that lands inside a character goes on past it, the way it was moving (§13).
        """
        self._check_open()
        query_id, old = self.store.live_span(span_id)  # deleted since: says by whom
        status = self.store.query(query_id).status
        before = seen or (old.start, old.end)
        text = self.corpus.text(old.doc)
        start = snap(text, start, forward=start > before[0])
        end = snap(text, end, forward=end >= before[1])
        if before == (start, end):
            return old
        new = self.store.update_span(
            span_id, start, end, text, annotator=self.annotator, expected=before
        )
        edges = (new.start, new.end)
        moved = SpanMoved(query_id, span_id, old.doc, before, edges, nudge)
        self.history.record(self._relabelled(query_id, status, moved) if status is Status.REVIEWED
                            else moved)  # fmt: skip
        self._flag(query_id, new)
        return new

    def delete_span(self, span_id: int, *, seen: tuple[int, int] | None = None) -> tuple[str, Span]:
        self._check_open()
        query_id, old = self.store.delete_span(span_id, annotator=self.annotator, expected=seen)
        now = self.store.query(query_id)
        deleted: Edit = SpanDeleted(query_id, old)
        if _empty(now):
            deleted = self._emptied(now, deleted)
        elif now.status is Status.REVIEWED:
            deleted = self._relabelled(query_id, Status.REVIEWED, deleted)
        self.history.record(deleted)
        return query_id, old

    def _emptied(self, now: Query, edit: Edit) -> Edit:
        """A query out of draft left with neither evidence nor abstention (its last span
        deleted, its abstention taken back) goes back to draft in the same undo step: one
        key never leaves nothing counted as done (issue 45; `L` labels empty, asking)."""
        if now.status is Status.DRAFT:
            return edit
        self.store.update_query(now.id, annotator=self.annotator, seen=now, status=Status.DRAFT)
        self.relabelled = (
            f"{now.id} has no evidence left and does not abstain: back to draft (^z undoes)"
        )
        return Together(
            edit, QueryChanged(now.id, {"status": now.status}, {"status": Status.DRAFT})
        )

    def add_query(self, text: str, **fields: Any) -> Query:
        query = self.store.add_query(text, annotator=self.annotator, **fields)
        self.history.record(QueryAdded(query))
        return query

    def duplicate_query(self, query_id: str) -> Query:
        """A copy of a query under a fresh id (taken in the write), evidence included."""
        old = self.store.query(query_id)
        texts = {s.doc: self.corpus.text(s.doc) for s in old.evidence}
        made = self.store.copy_query(old, texts, annotator=self.annotator)
        self.history.record(QueryAdded(made))
        return made

    def update_query(self, query_id: str, *, seen: Query | None = None, **changes: Any) -> Query:
        """Change the fields that differ from `seen` (what the form showed; default: the
        store now); refused when another annotator changed one of them since."""
        base = seen or self.store.query(query_id)
        changed = {k: v for k, v in changes.items() if getattr(base, k, v) != v}
        if not changed:
            return base
        new = self.store.update_query(query_id, annotator=self.annotator, seen=base, **changed)
        before = {k: getattr(base, k) for k in changed}
        edit: Edit = QueryChanged(query_id, before, changed)
        if changed.get("abstain") is False and "status" not in changed and _empty(new):
            edit = self._emptied(new, edit)
            new = self.store.query(query_id)
        self.history.record(edit)
        return new

    def reapply(self, query_id: str, changes: dict[str, Any]) -> Query:
        """Write `changes` over whatever is there now: the person chose to, after a conflict."""
        now = self.store.query(query_id)
        new = self.store.update_query(query_id, annotator=self.annotator, **changes)
        self.history.record(QueryChanged(query_id, {k: getattr(now, k) for k in changes}, changes))
        return new

    def delete_query(self, query_id: str, *, seen: Query | None = None) -> Query:
        """Delete a query; with `seen` (what the screen showed), refused when it changed since."""
        old = self.store.delete_query(query_id, annotator=self.annotator, seen=seen)
        self.history.record(QueryDeleted(old))
        return old

    def undo(self, *, force: bool = False) -> tuple[Edit, Focus] | None:
        return self._step(lambda: self.history.undo(force=force))

    def redo(self, *, force: bool = False) -> tuple[Edit, Focus] | None:
        return self._step(lambda: self.history.redo(force=force))

    @staticmethod
    def _step(step: Callable[[], tuple[Edit, Focus] | None]) -> tuple[Edit, Focus] | None:
        try:
            return step()
        except sqlite3.Error as exc:  # a constraint another annotator's edit now breaks
            raise StoreError(f"cannot replay this edit: {exc}") from None


def _empty(q: Query) -> bool:
    """Neither evidence nor abstention: nothing to count as done."""
    return not q.evidence and not q.abstain

"""Undo and redo as a stack of edits that know their own inverse.

The store commits every edit at once, so undo is another edit, not a rollback. Span ids
change when a deleted span is put back; `Replay` keeps an alias from each old id to the
live one, so older history entries still find their span. Each step returns a `Focus`
telling the screen where the change happened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from labeler.core.errors import StoreError
from labeler.core.store import Store
from labeler.core.store.conflicts import ConflictError
from labeler.core.values import Query, Span

LIMIT = 1_000
"""Edits kept for undo."""


@dataclass(frozen=True)
class Focus:
    """Where an edit happened, so the screen can show it."""

    query_id: str
    """The query edited."""
    doc: str | None = None
    """The document, for span edits."""
    offset: int | None = None
    """The offset to put the cursor on."""


class Replay:
    """What undo and redo act on: the store, the texts, who acts, and span id aliases."""

    def __init__(self, store: Store, text: Callable[[str], str], annotator: str) -> None:
        self.store = store
        self.text = text
        """Canonical text of a document by id."""
        self.annotator = annotator
        self.force = False
        """Set for one reapply: replay over others' changes instead of refusing."""
        self._aliases: dict[int, int] = {}

    def span_id(self, recorded: int | None) -> int:
        """The live id of a span recorded under `recorded`."""
        if recorded is None:
            raise StoreError("this span has no id", key="span")
        seen = {recorded}
        while recorded in self._aliases and self._aliases[recorded] not in seen:
            recorded = self._aliases[recorded]
            seen.add(recorded)
        return recorded

    def _alias(self, old: int | None, new: int | None) -> None:
        if old is None or new is None or old == new:
            return
        self._aliases.pop(new, None)  # `new` is live now: it must not point anywhere
        self._aliases[old] = new

    def readd_span(self, query_id: str, span: Span) -> Span:
        """Put back a deleted span under its own id (span ids are never reused), keeping
        who drew it and when."""
        old = self.span_id(span.id)
        new = self.store.add_span(
            query_id, replace(span, id=old), self.text(span.doc), annotator=self.annotator
        )
        self._alias(old, new.id)
        return new

    def edges(self, span: Span) -> tuple[int, int] | None:
        """The edges a replay expects a span to have; None when forcing (a reapply)."""
        return None if self.force else (span.start, span.end)

    def seen(self, query: Query) -> Query | None:
        """What a replay expects a query to be; None when forcing (a reapply)."""
        return None if self.force else query

    def _exists(self, query_id: str) -> bool:
        try:
            self.store.query(query_id)
        except StoreError:
            return False
        return True

    def restore_query(self, query: Query) -> Query:
        """Put back a deleted query with its spans; refuse if its id was taken meanwhile."""
        if self._exists(query.id):
            raise StoreError(f"query id {query.id} is in use again", key="id")
        olds = [self.span_id(s.id) for s in query.evidence]
        bare = replace(
            query,
            evidence=tuple(replace(s, id=o) for s, o in zip(query.evidence, olds, strict=True)),
            stored=True,  # as it was stored: restoring is not a new text
        )
        texts = {s.doc: self.text(s.doc) for s in query.evidence}
        restored = self.store.restore_query(bare, texts, annotator=self.annotator)
        for old, new in zip(olds, restored.evidence, strict=True):
            self._alias(old, new.id)
        return restored


class Edit(Protocol):
    """One recorded edit."""

    @property
    def label(self) -> str: ...

    def undo(self, r: Replay) -> Focus: ...

    def redo(self, r: Replay) -> Focus: ...


@dataclass(frozen=True)
class _SpanThere:
    """A span put in or taken out: the two writes that adding and deleting undo and redo."""

    query_id: str
    """The span's query."""
    span: Span
    """The span as stored (added) or as it was (deleted)."""

    def _put_in(self, r: Replay) -> Focus:
        r.readd_span(self.query_id, self.span)
        return Focus(self.query_id, self.span.doc, self.span.start)

    def _take_out(self, r: Replay) -> Focus:
        sid = r.span_id(self.span.id)
        r.store.delete_span(sid, annotator=r.annotator, expected=r.edges(self.span))
        return Focus(self.query_id, self.span.doc, self.span.start)


@dataclass(frozen=True)
class SpanAdded(_SpanThere):
    @property
    def label(self) -> str:
        return f"add span to {self.query_id}"

    def undo(self, r: Replay) -> Focus:
        return self._take_out(r)

    def redo(self, r: Replay) -> Focus:
        return self._put_in(r)


@dataclass(frozen=True)
class SpanMoved:
    query_id: str
    """The span's query."""
    span_id: int
    """The span's id when it was moved."""
    doc: str
    """Its document."""
    before: tuple[int, int]
    """Edges before the move."""
    after: tuple[int, int]
    """Edges after it."""
    nudge: bool = False
    """One edge moved one step (`[ ] { }`): consecutive nudges of a span undo together."""

    @property
    def label(self) -> str:
        return f"move span edges in {self.query_id}"

    def _put(self, r: Replay, edges: tuple[int, int], now: tuple[int, int]) -> Focus:
        text = r.text(self.doc)
        expected = None if r.force else now
        sid = r.span_id(self.span_id)
        r.store.update_span(sid, *edges, text, annotator=r.annotator, expected=expected)
        return Focus(self.query_id, self.doc, edges[0])

    def undo(self, r: Replay) -> Focus:
        return self._put(r, self.before, self.after)

    def redo(self, r: Replay) -> Focus:
        return self._put(r, self.after, self.before)


@dataclass(frozen=True)
class SpanDeleted(_SpanThere):
    @property
    def label(self) -> str:
        return f"delete span from {self.query_id}"

    def undo(self, r: Replay) -> Focus:
        return self._put_in(r)

    def redo(self, r: Replay) -> Focus:
        return self._take_out(r)


@dataclass(frozen=True)
class _QueryThere:
    """A query put in or taken out whole: what creating and deleting undo and redo."""

    query: Query
    """The query as created (with any evidence it was created with) or as it was."""

    def _put_in(self, r: Replay) -> Focus:
        r.restore_query(self.query)
        return Focus(self.query.id)

    def _take_out(self, r: Replay) -> Focus:
        r.store.delete_query(self.query.id, annotator=r.annotator, seen=r.seen(self.query))
        return Focus(self.query.id)


@dataclass(frozen=True)
class QueryAdded(_QueryThere):
    @property
    def label(self) -> str:
        return f"create {self.query.id}"

    def undo(self, r: Replay) -> Focus:
        return self._take_out(r)

    def redo(self, r: Replay) -> Focus:
        return self._put_in(r)


@dataclass(frozen=True)
class QueryChanged:
    query_id: str
    """The query changed."""
    before: Mapping[str, Any]
    """The changed fields' old values."""
    after: Mapping[str, Any] = field(default_factory=dict)
    """Their new values."""

    @property
    def label(self) -> str:
        return f"change {', '.join(sorted(self.after))} of {self.query_id}"

    def _put(
        self, r: Replay, values: Mapping[str, Any], now: Mapping[str, Any], *, undoing: bool
    ) -> Focus:
        there = r.store.query(self.query_id)
        if all(getattr(there, k) == v for k, v in values.items()):
            return Focus(self.query_id)  # already so (someone's edit since led there too)
        seen = None if r.force else replace(there, revision=0, **now, stored=True)
        r.store.update_query(
            self.query_id, annotator=r.annotator, seen=seen, undoing=undoing, **values
        )
        return Focus(self.query_id)

    def undo(self, r: Replay) -> Focus:
        """Put the old values back (a `reviewed` among them was set by someone else)."""
        return self._put(r, self.before, self.after, undoing=True)

    def redo(self, r: Replay) -> Focus:
        return self._put(r, self.after, self.before, undoing=False)


@dataclass(frozen=True)
class QueryDeleted(_QueryThere):
    @property
    def label(self) -> str:
        return f"delete {self.query.id}"

    def undo(self, r: Replay) -> Focus:
        return self._put_in(r)

    def redo(self, r: Replay) -> Focus:
        return self._take_out(r)


@dataclass(frozen=True)
class Together:
    """Two edits one key made (a first span and the status it moved): one undo step."""

    first: Edit
    """The edit the person asked for."""
    then: Edit
    """What followed from it."""

    @property
    def label(self) -> str:
        return self.first.label

    def undo(self, r: Replay) -> Focus:
        # The person's own edit first: when someone else has changed it since, the refusal
        # comes before anything is written (a status put back over a span gone, otherwise).
        focus = self.first.undo(r)
        self.then.undo(r)
        return focus

    def redo(self, r: Replay) -> Focus:
        focus = self.first.redo(r)
        self.then.redo(r)
        return focus


class History:
    """Two stacks of edits; a new edit clears the redo stack."""

    def __init__(self, replay: Replay, limit: int = LIMIT) -> None:
        self.replay = replay
        self.limit = limit
        self.undo_stack: list[Edit] = []
        """Edits that can be undone, latest last."""
        self.redo_stack: list[Edit] = []
        """Undone edits that can be redone, latest last."""

    def record(self, edit: Edit) -> None:
        last = self.undo_stack[-1] if self.undo_stack else None
        if (
            isinstance(edit, SpanMoved)
            and isinstance(last, SpanMoved)
            and edit.nudge
            and last.nudge
        ):
            edit = self._merged(last, edit)
        self.undo_stack.append(edit)
        del self.undo_stack[: -self.limit]
        self.redo_stack.clear()

    def _merged(self, last: SpanMoved, edit: SpanMoved) -> SpanMoved:
        """Nudging one span edge key by key is one adjustment: it undoes in one step."""
        if last.span_id != edit.span_id:
            return edit
        self.undo_stack.pop()
        return replace(edit, before=last.before)

    def undo(self, *, force: bool = False) -> tuple[Edit, Focus] | None:
        """Undo the latest edit. One refused as a conflict stays on the stack (to reapply
        with `force`, or `discard`); one that fails otherwise is dropped and raises."""
        return self._step(self.undo_stack, self.redo_stack, "undo", force)

    def redo(self, *, force: bool = False) -> tuple[Edit, Focus] | None:
        return self._step(self.redo_stack, self.undo_stack, "redo", force)

    def discard(self, which: str) -> None:
        """Drop the edit on top of the undo (or redo) stack: the person chose to reload."""
        stack = self.undo_stack if which == "undo" else self.redo_stack
        if stack:
            stack.pop()

    def _step(
        self, source: list[Edit], target: list[Edit], verb: str, force: bool
    ) -> tuple[Edit, Focus] | None:
        if not source:
            return None
        edit = source.pop()
        self.replay.force = force
        try:
            focus = edit.undo(self.replay) if verb == "undo" else edit.redo(self.replay)
        except ConflictError:
            source.append(edit)
            raise
        finally:
            self.replay.force = False
        target.append(edit)
        return edit, focus

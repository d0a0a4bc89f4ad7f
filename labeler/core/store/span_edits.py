"""Span writes, compare-and-set: a move or delete names the edges it started from (§3).

Span ids come from AUTOINCREMENT, so a deleted id is never handed out again and undo can
put a span back under its own id. The same document and offsets twice in one query is
refused; a span nested in or overlapping another of its query is written and flagged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from labeler.core.errors import StoreError
from labeler.core.store.conflicts import ConflictError, gone, refusal
from labeler.core.store.query_edits import QueryEdits
from labeler.core.store.rows import span_row, utcnow
from labeler.core.values import Span, same_quote

if TYPE_CHECKING:
    import sqlite_utils


class SpanEdits(QueryEdits):
    """Adding, moving and deleting evidence spans, each checked against what was seen."""

    def _insert_span(
        self,
        db: sqlite_utils.Database,
        query_id: str,
        span: Span,
        text: str,
        *,
        version: str | None = None,
    ) -> int:
        """Insert a checked span into `version` (default: the version in `view`)."""
        dh = self._checked_hash(span, text, {}, db)
        table = db.table("spans")
        row = span_row(query_id, replace(span, doc_hash=dh))
        table.insert({**row, "version": self.view if version is None else version})
        return int(table.last_rowid or 0)

    def _bump(self, db: sqlite_utils.Database, query_id: str) -> None:
        """A span edit is an edit of its query: a new revision (and of a blind version)."""
        now = utcnow()
        db.execute(
            "UPDATE queries SET updated = ?, revision = revision + 1 WHERE id = ?", [now, query_id]
        )
        if self.view:
            self.touch_version(query_id, now=now)

    def add_span(self, query_id: str, span: Span, text: str, *, annotator: str) -> Span:
        """Add evidence to a query; `text` is the document's canonical text.

        A span with an id (undo of a delete) comes back under that id, if it is free.
        Refuses the same document and offsets twice in one query.
        """
        with self.write() as db:
            q = self._live(query_id)
            if q.abstain and not self.view:
                raise StoreError(f"query {query_id} is an abstention query", key="abstain")
            self._refuse_duplicate(query_id, span)
            self._refuse_unlike(query_id, span)
            if span.id is not None and self._span_exists(span.id):
                raise StoreError(f"span {span.id} exists again; not overwriting it", key="span")
            s = replace(
                span, annotator=span.annotator or annotator, created=span.created or utcnow()
            )
            span_id = self._insert_span(db, query_id, s, text)
            self._bump(db, query_id)
            self.log_event(
                db, "span-added", annotator, query_id, span=span_id, doc=s.doc, start=s.start,
                end=s.end,
            )  # fmt: skip
        return self.span(span_id)[1]

    def _span_exists(self, span_id: int) -> bool:
        return bool(self.conn.execute("SELECT 1 FROM spans WHERE id = ?", [span_id]).fetchone())

    def _refuse_duplicate(
        self, query_id: str, span: Span, *, other_than: int | None = None
    ) -> None:
        row = self.conn.execute(
            "SELECT id, annotator FROM spans WHERE query_id = ? AND doc = ? AND start = ? "
            'AND "end" = ? AND id IS NOT ? AND version = ?',
            [query_id, span.doc, span.start, span.end, other_than, self.view],
        ).fetchone()
        if row is not None:
            by = f" (drawn by {row[1]})" if row[1] else ""
            raise StoreError(
                f"{query_id} already has {span.doc} {span.start}..{span.end} as evidence"
                f"{by}; not adding it twice",
                key="span",
                offset=span.start,
            )

    def overlapping(self, query_id: str, span: Span) -> list[Span]:
        """Other spans of the query in the same document that nest in or overlap `span`."""
        rows = self._span_rows(
            'WHERE query_id = ? AND doc = ? AND start < ? AND "end" > ? AND id IS NOT ?',
            [query_id, span.doc, span.end, span.start, span.id],
        )
        return [s for _, s in rows]

    def live_span(self, span_id: int) -> tuple[str, Span]:
        """(query id, span) as stored; a span deleted since is refused saying who and when."""
        return self._seen_span(span_id, None)

    def _seen_span(self, span_id: int, expected: tuple[int, int] | None) -> tuple[str, Span]:
        """The span as stored; refused as a conflict when its edges are not `expected`."""
        try:
            query_id, old = self.span(span_id)
        except StoreError:
            raise self._span_gone(span_id) from None
        if expected is not None and (old.start, old.end) != tuple(expected):
            detail = f"you saw {expected[0]}..{expected[1]}, it is now {old.start}..{old.end}"
            raise refusal(self.conn, query_id, f"span {span_id}", detail, span=span_id)
        return query_id, old

    def _span_gone(self, span_id: int) -> ConflictError:
        row = self.conn.execute(
            "SELECT query_id, annotator, at FROM events WHERE kind = 'span-deleted' AND "
            "json_extract(payload, '$.span') = ? ORDER BY id DESC LIMIT 1",
            [span_id],
        ).fetchone()
        if row is None:
            row = self.conn.execute(
                "SELECT query_id, annotator, at FROM events WHERE kind = 'query-replaced' AND "
                "EXISTS (SELECT 1 FROM json_each(payload, '$.removed_ids') WHERE value = ?) "
                "ORDER BY id DESC LIMIT 1",
                [span_id],
            ).fetchone()
            if row is not None:
                return self._removed_by_import(span_id, row)
            query = self.conn.execute(
                "SELECT query_id FROM events WHERE json_extract(payload, '$.span') = ? LIMIT 1",
                [span_id],
            ).fetchone()
            if query is not None:
                return gone(str(query[0]), self.conn)
            return ConflictError(f"no span {span_id}", key="span")
        return ConflictError(
            f"{row[0]}: span {span_id} was deleted by {row[1]} at "
            f"{row[2][:19].replace('T', ' ')} UTC; nothing was saved",
            key="span",
            query_id=row[0],
            what=f"span {span_id}",
            who=row[1],
            at=row[2],
        )

    @staticmethod
    def _removed_by_import(span_id: int, row: Any) -> ConflictError:
        at = str(row[2])[:19].replace("T", " ")
        return ConflictError(
            f"{row[0]}: span {span_id} was removed by {row[1]}'s import (--replace) at {at} "
            "UTC; nothing was saved",
            key="span", query_id=row[0], what=f"span {span_id}", who=row[1], at=row[2],
        )  # fmt: skip

    def update_span(
        self,
        span_id: int,
        start: int,
        end: int,
        text: str,
        *,
        annotator: str,
        expected: tuple[int, int] | None = None,
    ) -> Span:
        """Move a span's edges within its document, keeping its id.

        `expected` is the edges the mover started from; refused when they moved since.
        """
        with self.write() as db:
            query_id, old = self._seen_span(span_id, expected)
            new = replace(
                Span.from_text(
                    text, old.doc, start, end, annotator=old.annotator, created=old.created
                ),
                group=old.group,
            )
            self._refuse_unlike(query_id, new, other_than=span_id)
            self._refuse_duplicate(query_id, new, other_than=span_id)
            # The text the span is on now is fine too (a span accepted during a review).
            dh = self._checked_hash(new, text, {}, db, also=old.doc_hash)
            row = {**span_row(query_id, replace(new, doc_hash=dh)), "id": span_id}
            db.table("spans").update(span_id, row)
            self._bump(db, query_id)
            self.log_event(
                db, "span-moved", annotator, query_id, span=span_id, old=[old.start, old.end],
                new=[start, end],
            )  # fmt: skip
        return self.span(span_id)[1]

    def delete_span(
        self, span_id: int, *, annotator: str, expected: tuple[int, int] | None = None
    ) -> tuple[str, Span]:
        """Delete a span; with `expected`, only if its edges are still those."""
        with self.write() as db:
            query_id, old = self._seen_span(span_id, expected)
            self.drop_span(span_id, db=db)
            self._bump(db, query_id)
            self.log_event(db, "span-deleted", annotator, query_id, span=span_id)
        return query_id, old

    def drop_span(self, span_id: int, *, db: sqlite_utils.Database) -> None:
        """Delete span `span_id` inside the caller's transaction (logging is the caller's)."""
        db.execute("DELETE FROM spans WHERE id = ?", [span_id])

    # -- alternatives (§18) ------------------------------------------------------------

    def _refuse_unlike(self, query_id: str, span: Span, *, other_than: int | None = None) -> None:
        """A span in a group must quote what the group's other spans quote."""
        if span.group is None:
            return
        for other in self._span_rows("WHERE query_id = ? AND grp = ? AND id IS NOT ?",
                                     [query_id, span.group, other_than]):  # fmt: skip
            if not same_quote(other[1].quote, span.quote):
                o = other[1]
                raise StoreError(
                    f"{query_id}: {span.doc} {span.start}..{span.end} quotes "
                    f"{span.quote[:40]!r}, not what its group {span.group} quotes "
                    f"({o.doc} {o.start}..{o.end}: {o.quote[:40]!r}); not an alternative",
                    key="group",
                    offset=span.start,
                )

    def _free_group(self, query_id: str) -> int:
        row = self.conn.execute(
            "SELECT coalesce(max(grp), 0) + 1 FROM spans WHERE query_id = ? AND version = ?",
            [query_id, self.view],
        ).fetchone()
        return int(row[0])

    def add_alternative(
        self,
        span_id: int,
        span: Span,
        text: str,
        *,
        annotator: str,
        expected: tuple[int, int] | None = None,
        expected_group: int | None = None,
    ) -> Span:
        """Add `span` as an alternative of span `span_id` (either will do, §18): both get
        the group the current one has, or a new one. Compare-and-set: refused when the
        current span's edges or group are no longer those the person saw."""
        with self.write() as db:
            query_id, current = self._seen_span(span_id, expected)
            self._refuse_regrouped(query_id, span_id, current, expected_group)
            group = current.group or self._free_group(query_id)
            if current.group is None:
                db.execute("UPDATE spans SET grp = ? WHERE id = ?", [group, span_id])
            new = replace(span, group=group, annotator=span.annotator or annotator,
                          created=span.created or utcnow())  # fmt: skip
            self._refuse_duplicate(query_id, new)
            self._refuse_unlike(query_id, new)
            new_id = self._insert_span(db, query_id, new, text)
            self._bump(db, query_id)
            self.log_event(db, "span-added", annotator, query_id, span=new_id, doc=new.doc,
                           start=new.start, end=new.end, group=group, of=span_id)  # fmt: skip
        return self.span(new_id)[1]

    def set_group(
        self, span_id: int, group: int | None, *, annotator: str, expected_group: int | None
    ) -> Span:
        """Put span `span_id` in `group` (None: a group of its own); compare-and-set against
        the group the person saw."""
        if group is not None and (isinstance(group, bool) or group < 1):
            raise StoreError(f"group must be a positive integer, got {group!r}", key="group")
        with self.write() as db:
            query_id, old = self._seen_span(span_id, None)
            self._refuse_regrouped(query_id, span_id, old, expected_group)
            self._refuse_unlike(query_id, replace(old, group=group), other_than=span_id)
            db.execute("UPDATE spans SET grp = ? WHERE id = ?", [group, span_id])
            self._bump(db, query_id)
            self.log_event(db, "span-regrouped", annotator, query_id, span=span_id,
                           old=old.group, new=group)  # fmt: skip
        return self.span(span_id)[1]

    def _refuse_regrouped(
        self, query_id: str, span_id: int, now: Span, expected: int | None
    ) -> None:
        if now.group != expected:
            detail = f"you saw group {expected}, it is now group {now.group}"
            raise refusal(self.conn, query_id, f"span {span_id}", detail, span=span_id)

"""Changing and deleting queries, compare-and-set (§3): a change names the fields it saw,
a delete the whole query; a blind annotator's changes go to their own version (§3), and a
version change moves the query's revision so others can tell.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from labeler.core.errors import StoreError
from labeler.core.store.authors import refuse_self_review
from labeler.core.store.conflicts import FIELDS, ConflictError, gone, refusal, show
from labeler.core.store.edits import Edits
from labeler.core.store.others import assignments, require_for
from labeler.core.store.rows import VERSION_FIELDS, query_row, utcnow
from labeler.core.team.roles import Act
from labeler.core.values import Query, Status, check_changed


class QueryEdits(Edits):
    """Query changes and deletes, each checked against what the editor saw."""

    def touch_version(self, query_id: str, *, now: str) -> None:
        """Record that the annotator in `view` changed their version of the query (§3): a new
        version starts from the query's own fields, as a draft; either way its revision moves.
        """
        self.conn.execute(
            "INSERT INTO versions(query_id, annotator, abstain, boundary, slices, notes, status, "
            "updated) SELECT id, ?, abstain, boundary, slices, notes, 'draft', ? FROM queries "
            "WHERE id = ? ON CONFLICT(query_id, annotator) DO UPDATE SET "
            "updated = excluded.updated, revision = revision + 1",
            [self.view, now, query_id],
        )

    def _update_version(
        self, query_id: str, annotator: str, seen: Query | None, changes: Mapping[str, Any]
    ) -> None:
        """Write a blind annotator's own fields into their version, compare-and-set like a
        query's; the query's revision moves too, so a reviewer who read it is refused."""
        if changes.get("status") == Status.REVIEWED:
            raise StoreError(
                "a version is not marked reviewed; a reviewer adjudicates the query",
                key="status", hint="`spanlab adjudicate`, after both versions are in",
            )  # fmt: skip
        with self.write() as db:
            old = self._live(query_id)
            if seen is not None:
                self._check_fields(old, seen, changes)
            now = utcnow()
            self.touch_version(query_id, now=now)
            new = query_row(_changed(old, changes))
            sets = ", ".join(f"{k} = ?" for k in changes)
            self.conn.execute(
                f"UPDATE versions SET {sets} WHERE query_id = ? AND annotator = ?",
                [*(new[k] for k in changes), query_id, self.view],
            )
            self.conn.execute("UPDATE queries SET revision = revision + 1 WHERE id = ?", [query_id])
            self.log_event(
                db, "version-updated", annotator, query_id, version=self.view,
                changes={k: str(v) for k, v in changes.items()},
                before={k: str(getattr(old, k)) for k in changes},
            )  # fmt: skip

    def update_query(
        self,
        query_id: str,
        *,
        annotator: str,
        seen: Query | None = None,
        undoing: bool = False,
        **changes: Any,
    ) -> Query:
        """Change query fields (text, boundary, slices, abstain, notes, status).

        Compare-and-set: with `seen` (the query as the editor read it) a field whose value
        changed since is refused, naming who changed it; only the fields in `changes` are
        written. Without `seen` the change applies over whatever is there (a reapply).
        `reviewed` is refused to the query's authors, unless `undoing`: an undo puts back
        a status someone else set (an author could not have set it).
        """
        unknown = set(changes) - set(FIELDS)
        if unknown:
            raise StoreError(f"cannot change {', '.join(sorted(unknown))}", key=sorted(unknown)[0])
        if self.view and "facts" in changes:
            raise StoreError(
                "facts are the query's own, not a blind version's: they are labelled outside "
                "the blind view", key="facts", hint="ask a lead, or label them once the "
                "query is adjudicated",
            )  # fmt: skip
        if self.view and set(changes) & set(VERSION_FIELDS):  # a blind annotator's own fields
            mine = {k: v for k, v in changes.items() if k in VERSION_FIELDS}
            self._update_version(query_id, annotator, seen, mine)
            changes = {k: v for k, v in changes.items() if k not in VERSION_FIELDS}
            if not changes:
                return self.query(query_id)
        with self.write() as db:
            old = self._live(query_id)
            if seen is not None:
                self._check_fields(old, seen, changes)
            if "text" in changes and changes["text"] != old.text:
                require_for(self.member, old.annotator, annotator, Act.REWORD_OTHERS)
            if changes.get("status") == Status.REVIEWED and not undoing:
                refuse_self_review(self.conn, query_id, annotator)
            new = _changed(old, changes, updated=utcnow(), revision=old.revision + 1)
            columns = {k: v for k, v in query_row(new).items() if k in {*changes, "updated"}}
            db.table("queries").update(query_id, {**columns, "revision": new.revision})
            self.log_event(
                db, "query-updated", annotator, query_id,
                changes={k: str(v) for k, v in changes.items()},
                before={k: str(getattr(old, k)) for k in changes},
            )  # fmt: skip
        return self.query(query_id)

    def _live(self, query_id: str) -> Query:
        """The query as stored now; a deleted one is refused as a conflict."""
        try:
            return self.query(query_id)
        except StoreError:
            raise gone(query_id, self.conn) from None

    def _check_fields(self, now: Query, seen: Query, changes: Mapping[str, Any]) -> None:
        if now.revision == seen.revision and seen.revision:
            return
        for name in changes:
            theirs, then = getattr(now, name), getattr(seen, name)
            if theirs != then:
                detail = f"you saw {show(then)}, it is now {show(theirs)}"
                raise refusal(self.conn, now.id, name, detail, field=name)

    def delete_query(self, query_id: str, *, annotator: str, seen: Query | None = None) -> Query:
        """Delete a query and its spans and retire its id; returns it whole, for undo.

        With `seen`, refuses when the query (fields or evidence) changed since.
        """
        with self.write() as db:
            old = self._live(query_id)
            if seen is not None:
                self._check_whole(old, seen)
            self._refuse_others_versions(query_id)
            require_for(self.member, old.annotator, annotator, Act.DELETE_OTHERS)
            assigned = assignments(self.conn, query_id)
            db.execute("DELETE FROM spans WHERE query_id = ?", [query_id])
            db.execute("DELETE FROM queries WHERE id = ?", [query_id])
            db.execute(
                "INSERT OR REPLACE INTO retired_ids(id, annotator, at) VALUES (?, ?, ?)",
                [query_id, annotator, utcnow()],
            )
            self.log_event(db, "query-deleted", annotator, query_id, spans=len(old.evidence),
                           owner=old.annotator, assigned=assigned)  # fmt: skip
        return old

    def _refuse_others_versions(self, query_id: str) -> None:
        """A blind annotator deletes no query that holds someone else's version (§3)."""
        if not self.view:
            return
        rows = self.conn.execute(
            "SELECT annotator FROM versions WHERE query_id = ? AND annotator != ? ORDER BY 1",
            [query_id, self.view],
        ).fetchall()
        if rows:
            names = ", ".join(str(r[0]) for r in rows)
            raise ConflictError(
                f"{query_id} holds {names}'s version; a blind annotator cannot delete it",
                key="query", hint="ask a lead; the project's `blind = true` keeps versions apart",
                query_id=query_id, what="the query", who=names,
            )  # fmt: skip

    def _check_whole(self, now: Query, seen: Query) -> None:
        self._check_fields(now, seen, dict.fromkeys(FIELDS))
        if _edges(now) != _edges(seen):
            detail = f"you saw {len(seen.evidence)} span(s), it has {len(now.evidence)}"
            raise refusal(self.conn, now.id, "its evidence", detail, span=-1)
        self._check_versions(now, seen)

    def _check_versions(self, now: Query, seen: Query) -> None:
        """A delete takes every version with it: when the query moved since it was read (a
        version's change moves it too) and holds someone else's version, it is refused."""
        if now.revision == seen.revision or not seen.revision:
            return
        row = self.conn.execute(
            "SELECT annotator, updated FROM versions WHERE query_id = ? AND annotator != ? "
            "ORDER BY updated DESC LIMIT 1",
            [now.id, self.view],
        ).fetchone()
        if row is not None:
            who, at = str(row[0]), str(row[1])
            raise ConflictError(
                f"{now.id} changed since you read it (revision {seen.revision}, now "
                f"{now.revision}) and holds {who}'s version, last changed at "
                f"{at[:19].replace('T', ' ')} UTC; nothing was deleted",
                key="query", hint="reload to see it, then delete again if you still mean to",
                query_id=now.id, what=f"{who}'s version", who=who, at=at,
            )  # fmt: skip


def _changed(old: Query, changes: Mapping[str, Any], **stamps: Any) -> Query:
    """`old` with `changes`, where only what changes is checked: a row stored before the
    control-character rule keeps its other fields (shown escaped) and can still be edited."""
    new = replace(old, **changes, **stamps, stored=True)
    check_changed(new, changes)
    return new


def _edges(q: Query) -> list[tuple[int | None, str, int, int]]:
    return sorted((s.id, s.doc, s.start, s.end) for s in q.evidence)

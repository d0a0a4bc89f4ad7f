"""Double annotation in the store: blind versions, queues of assigned queries, and the
next query an annotator has not labelled (§3).

A version is the spans whose `version` column names an annotator, plus a `versions` row
holding the rest of that annotator's annotation (abstain, pattern, slices, notes, status),
so an abstaining version, which has no spans, still counts. Reads hand out `Version`s.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from labeler.core.errors import StoreError
from labeler.core.overlaps import duplicated
from labeler.core.store import cells
from labeler.core.store.reads import SPAN_SELECT
from labeler.core.store.reviews import Reviews
from labeler.core.store.rows import Version, utcnow
from labeler.core.values import Boundary, Query, Span, Status

if TYPE_CHECKING:
    import sqlite_utils


def _own(v: Version) -> tuple[str | None, str | None, str | None, str]:
    """A version's own columns as written; None where the query's value stands."""
    slices = None if v.slices is None else json.dumps(list(v.slices))
    boundary = None if v.boundary is None else Boundary(v.boundary).value
    return boundary, slices, v.notes, Status(v.status).value


def _version(who: str, spans: tuple[Span, ...], row: Any) -> Version:
    if row is None:  # spans without a versions row: written before versions had one
        return Version(who, False, spans, Boundary.OTHER, (), "", Status.LABELLED, 0)
    key = f"{row[0]}/{who}"
    return Version(
        who, bool(row[2]), spans, cells.member(Boundary, "versions", key, "boundary", row[3]),
        cells.slices("versions", key, row[4]), cells.typed(str, "versions", key, "notes", row[5]),
        cells.member(Status, "versions", key, "status", row[6]), row[7],
    )  # fmt: skip


class Versions(Reviews):
    """Versions, assignments and the annotator's queue, on top of every other layer."""

    def versions(self, query_ids: Sequence[str] | None = None) -> dict[str, dict[str, Version]]:
        """{query id: {annotator: version}} for every query with a blind version."""
        only, args = self._only(query_ids)
        cur = self.conn.cursor()
        cur.row_factory = None
        cur.execute(
            f"SELECT {SPAN_SELECT}, version FROM spans WHERE version != '' {only} "
            'ORDER BY doc, start, "end", id',
            args,
        )
        spans: dict[tuple[str, str], list[Span]] = {}
        for r in cur.fetchall():
            span = cells.span(r)
            spans.setdefault((r[0], r[12]), []).append(span)
        rows = self.conn.execute(
            f"SELECT query_id, annotator, abstain, boundary, slices, {cells.NOTES}, status, "
            f"revision FROM versions WHERE 1 {only}",
            args,
        )
        fields = {(r[0], r[1]): r for r in rows}
        out: dict[str, dict[str, Version]] = {}
        for qid, who in sorted(set(spans) | set(fields)):
            got = tuple(spans.get((qid, who), ()))
            out.setdefault(qid, {})[who] = _version(who, got, fields.get((qid, who)))
        return out

    def put_versions(
        self,
        versions: Iterable[tuple[str, Version]],
        texts: Mapping[str, str],
        *,
        db: sqlite_utils.Database,
    ) -> int:
        """Write (query id, version) pairs inside the caller's transaction, replacing any
        earlier version of the same annotator; every span checked against its text."""
        hashes: dict[str, str] = {}
        rows, marks, now = [], [], utcnow()
        for qid, v in versions:
            if duplicated(Query(qid, "?", evidence=v.spans)):
                raise StoreError(f"{qid}: {v.annotator}'s version repeats a span", key="evidence")
            marks.append((qid, v.annotator, int(v.abstain), *_own(v), now))
            for sp in v.spans:
                if sp.doc not in texts:
                    raise StoreError(f"query {qid}: no text for document {sp.doc!r}", key="doc")
                dh = self._checked_hash(sp, texts[sp.doc], hashes, db)
                who = sp.annotator or v.annotator
                rows.append((qid, sp.doc, sp.start, sp.end, sp.quote, sp.prefix, sp.suffix, dh,
                             who, sp.created or now, v.annotator, sp.group))  # fmt: skip
        self.conn.executemany(
            "DELETE FROM spans WHERE query_id = ? AND version = ?", [m[:2] for m in marks]
        )
        self.conn.executemany(
            'INSERT INTO spans(query_id, doc, start, "end", quote, prefix, suffix, doc_hash, '
            "annotator, created, version, grp) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        # A field left None is the query's own; a version written again gets a new revision,
        # and so does its query, so a reviewer who read the old one is refused (§3).
        self.conn.executemany(
            "INSERT INTO versions(query_id, annotator, abstain, boundary, slices, notes, status, "
            "updated) SELECT q.id, ?, ?, coalesce(?, q.boundary), coalesce(?, q.slices), "
            "coalesce(?, q.notes), ?, ? FROM queries q WHERE q.id = ? "
            "ON CONFLICT(query_id, annotator) DO UPDATE SET abstain = excluded.abstain, "
            "boundary = excluded.boundary, slices = excluded.slices, notes = excluded.notes, "
            "status = excluded.status, updated = excluded.updated, revision = revision + 1",
            [(*m[1:], m[0]) for m in marks],
        )
        self.conn.executemany(
            "UPDATE queries SET revision = revision + 1 WHERE id = ?", [m[:1] for m in marks]
        )
        return len(marks)

    @staticmethod
    def _only(query_ids: Sequence[str] | None) -> tuple[str, list[Any]]:
        if query_ids is None:
            return "", []
        return f"AND query_id IN ({','.join('?' * len(query_ids))})", list(query_ids)

    # -- assignment ------------------------------------------------------------------------

    def assign(self, plan: Iterable[tuple[str, str]], *, by: str) -> int:
        """Put each (query id, annotator) in `plan` on that annotator's queue; how many new."""
        pairs = list(plan)
        with self.write():
            known = {r[0] for r in self.conn.execute("SELECT id FROM queries")}
            missing = sorted({q for q, _ in pairs} - known)
            if missing:
                raise StoreError(f"no query {missing[0]!r} to assign", key="query")
            before = self.count("assignments")
            self.conn.executemany(
                "INSERT OR IGNORE INTO assignments(query_id, annotator, assigned_by, at) "
                "VALUES (?, ?, ?, ?)",
                [(q, who, by, utcnow()) for q, who in pairs],
            )
            return self.count("assignments") - before

    def queue(self, annotator: str) -> list[str]:
        """The queries assigned to `annotator`, in id order."""
        sql = "SELECT query_id FROM assignments WHERE annotator = ? ORDER BY query_id"
        return [r[0] for r in self.conn.execute(sql, (annotator,))]

    def double_annotated(self) -> int:
        """How many queries have two or more annotators' versions (decided or not)."""
        sql = "SELECT count(*) FROM (SELECT 1 FROM versions GROUP BY query_id HAVING count(*) >= 2)"
        return int(self.conn.execute(sql).fetchone()[0])

    def assigned(self) -> dict[str, list[str]]:
        """{annotator: assigned query ids}."""
        out: dict[str, list[str]] = {}
        rows = self.conn.execute("SELECT annotator, query_id FROM assignments ORDER BY 1, 2")
        for who, qid in rows:
            out.setdefault(who, []).append(qid)
        return out

    def next_unlabelled(self, annotator: str, after: str | None = None) -> str | None:
        """The annotator's next query (their queue, else every query) still unlabelled by
        them, after `after` and wrapping round; None when none is left."""
        ids = self.queue(annotator) or [r[0] for r in self.conn.execute(
            "SELECT id FROM queries ORDER BY id")]  # fmt: skip
        done = self._labelled_by(annotator)
        todo = [q for q in ids if q not in done]
        later = [q for q in todo if after is None or q > after]
        return (later or todo)[0] if todo else None

    def progress(
        self, annotator: str, since: str, *, apart: bool = False
    ) -> tuple[int, int, int, float | None]:
        """(done, of: their queue or every query, queries they edited at or after `since`
        (an ISO time), seconds per such query from their first edit to their last). A copy
        made by duplicating a query (`^d`) is no work done: only edits to it count. Counted
        in SQL: at 100,000 queries, building the id sets in Python cost 0.2 s a screen.
        `apart`: on a read-only connection of its own (`reader`), for a thread: the count
        still scans every query (0.1–0.7 s at 100,000), which no key should wait for."""
        if not apart:
            return self._progress(self.conn, annotator, since)
        with self.reader() as conn:
            return self._progress(conn, annotator, since)

    def _progress(
        self, conn: sqlite3.Connection, annotator: str, since: str
    ) -> tuple[int, int, int, float | None]:
        done, of = self._done_of(conn, annotator)
        row = conn.execute(
            "SELECT count(DISTINCT query_id), min(at), max(at) FROM events "
            "WHERE annotator = ? AND at >= ? AND query_id IS NOT NULL "
            "AND NOT (kind = 'query-added' AND json_extract(payload, '$.copy_of') IS NOT NULL)",
            (annotator, since),
        ).fetchone()
        today, first, last = int(row[0]), row[1], row[2]
        pace = None if today < 2 else _seconds(first, last) / (today - 1)
        return done, of, today, pace

    def _done_of(self, conn: sqlite3.Connection, annotator: str) -> tuple[int, int]:
        """How many of their queue (else of every query) they have labelled, and of how many."""
        labelled, params = self._labelled_sql(annotator)
        count = f"SELECT count(*) FROM ({labelled})"
        of = conn.execute(
            "SELECT count(*) FROM assignments WHERE annotator = ?", (annotator,)
        ).fetchone()[0]
        if of:
            count += " WHERE id IN (SELECT query_id FROM assignments WHERE annotator = ?)"
            params = (*params, annotator)
        else:
            of = conn.execute("SELECT count(*) FROM queries").fetchone()[0]
            if self.view:  # a query's own labels are rows of `queries` already
                count += " WHERE id IN (SELECT id FROM queries)"
        return int(conn.execute(count, params).fetchone()[0]), int(of)

    def _labelled_by(self, annotator: str) -> set[str]:
        sql, params = self._labelled_sql(annotator)
        return {r[0] for r in self.conn.execute(sql, params)}

    def _labelled_sql(self, annotator: str) -> tuple[str, tuple[str, ...]]:
        """The ids (column `id`) of queries `annotator` has labelled, as SQL and its
        parameters. A version only begun (a pattern chosen) is not labelled yet."""
        if self.view:
            return (
                "SELECT query_id AS id FROM versions v WHERE annotator = ? AND (abstain = 1 OR "
                "status != 'draft' OR EXISTS (SELECT 1 FROM spans s WHERE s.query_id = "
                "v.query_id AND s.version = v.annotator))",
                (annotator,),
            )
        return (
            "SELECT id FROM queries WHERE abstain = 1 OR status != 'draft' OR EXISTS "
            "(SELECT 1 FROM spans WHERE spans.query_id = queries.id AND version = '')",
            (),
        )


def _seconds(first: str, last: str) -> float:
    """Seconds from one ISO time to another."""
    return (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()

"""Queries added, copied, restored and put in bulk, and the audit log every edit writes (§3).

Every span written is checked against the text it was drawn on, and that text is kept
(content-addressed) so stale spans can be reviewed after the corpus folder changes.
Methods taking `db` write inside the caller's transaction; the others open their own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from labeler.core.corpus.canonical import doc_hash
from labeler.core.errors import StoreError
from labeler.core.overlaps import duplicated
from labeler.core.store.authors import SelfReview
from labeler.core.store.others import put_back, require_for
from labeler.core.store.reads import Reads
from labeler.core.store.rows import QUERY_COLUMNS, query_row, utcnow
from labeler.core.team.roles import Act, Member
from labeler.core.values import Boundary, Query, Span, Status

if TYPE_CHECKING:
    import sqlite_utils


class Edits(Reads):
    """Writes of queries and spans, on top of the reads they check against."""

    member: Member | None = None
    """Who edits through this store (set when it is opened for a person): acts on another's
    query ask it (§20); None, as a library or a test opens it: nobody is asked."""

    def keep_text(self, doc_hash: str, text: str, *, db: sqlite_utils.Database) -> None:
        """Remember a document text a span was drawn on (content-addressed)."""
        sql = "INSERT OR IGNORE INTO doc_texts(doc_hash, text) VALUES (?, ?)"
        db.execute(sql, [doc_hash, text])

    # -- writing queries -----------------------------------------------------------------

    def log_event(
        self,
        db: sqlite_utils.Database,
        kind: str,
        who: str,
        qid: str | None,
        *,
        at: str | None = None,
        **payload: Any,
    ) -> None:
        """Append to the audit log inside the caller's transaction."""
        db.table("events").insert(
            {
                "at": at or utcnow(),
                "annotator": who,
                "kind": kind,
                "query_id": qid,
                "payload": json.dumps(payload, ensure_ascii=False, sort_keys=True),
            }
        )

    def note(self, kind: str, who: str, **payload: Any) -> None:
        """Log an event about the whole project (`init` over it, say) in its own write."""
        with self.write() as db:
            self.log_event(db, kind, who, None, **payload)

    def allocate_query_id(self, db: sqlite_utils.Database) -> str:
        """The next `q-NNNN`, taken inside the caller's write transaction (§3).

        A counter in `meta` only moves forward, so a deleted id is never handed out again
        and two writers never get the same one: the second waits for the first's commit.
        """
        del db  # the transaction is the caller's; the connection is ours
        number = max(self._last_query_number(), self._max_query_number()) + 1
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('last_query_number', ?)",
            (str(number),),
        )
        return f"q-{number:04d}"

    def allocate_query_ids(self, db: sqlite_utils.Database, n: int) -> list[str]:
        """`n` ids as `allocate_query_id` hands them out one by one, in one step (an import
        of 200,000 questions scanned every id once per question: 97 s of 221)."""
        del db
        if n <= 0:
            return []
        first = max(self._last_query_number(), self._max_query_number()) + 1
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('last_query_number', ?)",
            (str(first + n - 1),),
        )
        return [f"q-{number:04d}" for number in range(first, first + n)]

    def _last_query_number(self) -> int:
        return int(self.meta("last_query_number") or 0)

    def _refuse_taken(self, qid: str) -> None:
        """Refuse an explicit id that is in use or retired (deleted ids stay retired)."""
        if self.conn.execute("SELECT 1 FROM queries WHERE id = ?", [qid]).fetchone():
            raise StoreError(f"query {qid} already exists", key="id")
        row = self.conn.execute("SELECT annotator, at FROM retired_ids WHERE id = ?", [qid])
        found = row.fetchone()
        if found is not None:
            raise StoreError(
                f"query id {qid} was deleted by {found[0]} at {found[1][:19]} and stays retired",
                key="id",
                hint="leave the id out and a fresh one is given",
            )

    def add_query(
        self,
        text: str,
        *,
        annotator: str,
        boundary: Boundary = Boundary.OTHER,
        slices: Iterable[str] = (),
        abstain: bool = False,
        notes: str = "",
        status: Status = Status.DRAFT,
        query_id: str | None = None,
    ) -> Query:
        """Create a query; the id is allocated in the same transaction unless given.

        Not as `reviewed`: its creator cannot review it (an import keeps a recorded status).
        """
        if status == Status.REVIEWED:
            raise SelfReview(
                f"a new query cannot start reviewed: {annotator} creates it, "
                "someone else must mark it reviewed",
                key="status",
            )
        with self.write() as db:
            now = utcnow()
            if query_id is not None:
                self._refuse_taken(query_id)
            qid = query_id or self.allocate_query_id(db)
            q = Query(
                qid, text, abstain, boundary, tuple(slices), notes, status, annotator, now, now,
                revision=1,
            )  # fmt: skip
            db.table("queries").insert(query_row(q))
            self.log_event(db, "query-added", annotator, qid)
        return q

    def restore_query(self, query: Query, texts: Mapping[str, str], *, annotator: str) -> Query:
        """Put back a whole query under its own id (undo of a delete), spans checked.

        Refused when the id is in use; a retired id comes back out of retirement, and the
        assignments its delete kept come back with it. Another's query is a lead's to restore.
        """
        require_for(self.member, query.annotator, annotator, Act.RESTORE_OTHERS)
        with self.write() as db:
            if db.execute("SELECT 1 FROM queries WHERE id = ?", [query.id]).fetchone():
                raise StoreError(f"query {query.id} exists again; not overwriting it", key="id")
            self.put_queries([query], texts, db=db)
            db.execute("DELETE FROM retired_ids WHERE id = ?", [query.id])
            back = put_back(self.conn, query.id)
            self.log_event(db, "query-restored", annotator, query.id, owner=query.annotator,
                           assignments=back)  # fmt: skip
        return self.query(query.id)

    def copy_query(self, query: Query, texts: Mapping[str, str], *, annotator: str) -> Query:
        """A copy of `query` and its evidence, in `annotator`'s name, under a fresh id.

        A reviewed query's copy is `labelled`: the review was of the original, by another.
        """
        with self.write() as db:
            qid = self.allocate_query_id(db)
            now = utcnow()
            spans = tuple(replace(s, id=None, annotator=annotator) for s in query.evidence)
            status = Status.LABELLED if query.status == Status.REVIEWED else query.status
            copy = replace(query, id=qid, annotator=annotator, created=now, updated=now,
                           evidence=spans, revision=1, status=status)  # fmt: skip
            self.put_queries([copy], texts, db=db)
            self.log_event(db, "query-added", annotator, qid, copy_of=query.id)
        return self.query(qid)

    def put_queries(
        self, queries: Iterable[Query], texts: Mapping[str, str], *, db: sqlite_utils.Database
    ) -> None:
        """Insert or replace queries with their spans inside the caller's transaction.

        Bulk by design (an import may bring 100,000 queries): each document is hashed once
        and rows go in with executemany, every span still checked against its text.
        """
        hashes: dict[str, str] = {}
        query_rows: list[tuple[Any, ...]] = []
        span_rows: list[tuple[Any, ...]] = []
        for q in queries:
            dups = duplicated(q)
            if dups:
                s = dups[0]
                raise StoreError(
                    f"query {q.id} has {s.doc} {s.start}..{s.end} as evidence twice",
                    key="evidence",
                    offset=s.start,
                )
            row = query_row(q)
            query_rows.append(tuple(row[c] for c in QUERY_COLUMNS))
            for s in q.evidence:
                if s.doc not in texts:
                    raise StoreError(f"query {q.id}: no text for document {s.doc!r}", key="doc")
                dh = self._checked_hash(s, texts[s.doc], hashes, db)
                span_rows.append((s.id, q.id, s.doc, s.start, s.end, s.quote, s.prefix,
                                  s.suffix, dh, s.annotator, s.created, s.group))  # fmt: skip
        marks = ",".join("?" * len(QUERY_COLUMNS))
        names = ",".join(QUERY_COLUMNS)
        # The query's own evidence only: annotators' blind versions stay theirs (§3).
        self.conn.executemany(
            "DELETE FROM spans WHERE query_id = ? AND version = ''", [(r[0],) for r in query_rows]
        )
        again = ", ".join(f"{c} = excluded.{c}" for c in QUERY_COLUMNS[1:-1])
        self.conn.executemany(
            f"INSERT INTO queries({names}) VALUES ({marks}) ON CONFLICT(id) DO UPDATE SET "
            f"{again}, revision = queries.revision + 1",
            query_rows,
        )
        self.conn.executemany(
            'INSERT INTO spans(id, query_id, doc, start, "end", quote, prefix, suffix, doc_hash, '
            "annotator, created, grp) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            span_rows,
        )

    def _checked_hash(
        self,
        span: Span,
        text: str,
        hashes: dict[str, str],
        db: sqlite_utils.Database,
        *,
        also: str | None = None,
    ) -> str:
        """Check `text[start:end] == quote` and return the text's hash, remembering the text."""
        span.check(text)
        dh = hashes.get(span.doc)
        if dh is None:
            seen = self._hashed.get(span.doc)
            # Identity, not equality: the same str object cannot have changed.
            dh = seen[1] if seen is not None and seen[0] is text else doc_hash(text)
            bound = self._bound_hash(span.doc, db)
            if bound is not None and dh not in (bound, also):
                raise StoreError(
                    f"{span.doc} has changed since the store was bound; this span was drawn "
                    "on another text",
                    key="doc",
                    hint="restart the app; `spanlab corpus status` shows what changed",
                )
            hashes[span.doc] = dh
            self._hashed[span.doc] = (text, dh)
            self.keep_text(dh, text, db=db)
        if span.doc_hash and span.doc_hash != dh:
            raise StoreError(
                f"span was drawn on {span.doc_hash}, the text given has {dh}", key="doc_hash"
            )
        return dh

    def _bound_hash(self, doc: str, db: sqlite_utils.Database) -> str | None:
        """The hash the binding holds for `doc`; None for an unbound store (anything goes)."""
        if self.corpus_hash is None:
            return None
        row = db.execute("SELECT doc_hash FROM bound_documents WHERE doc = ?", [doc]).fetchone()
        return "" if row is None else str(row[0])

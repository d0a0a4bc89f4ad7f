"""Query and span edits, each committed at once and, bulk imports aside, logged (§3).

Every span written is checked against the text it was drawn on, and that text is kept
(content-addressed) so stale spans can be reviewed after the corpus folder changes.
Methods taking `db` write inside the caller's transaction; the others open their own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import sqlite_utils

from labeler.core.canonical import doc_hash
from labeler.core.errors import StoreError
from labeler.core.store.reads import Reads
from labeler.core.store.rows import QUERY_COLUMNS, query_row, span_row, utcnow
from labeler.core.values import Boundary, Query, Span, Status


class Edits(Reads):
    """Writes of queries and spans, on top of the reads they check against."""

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
        """Create a query; the id is the next free `q-NNNN` unless given."""
        with self.write() as db:
            now = utcnow()
            qid = query_id or self.next_query_id()
            if db.execute("SELECT 1 FROM queries WHERE id = ?", [qid]).fetchone():
                raise StoreError(f"query {qid} already exists", key="id")
            q = Query(
                qid, text, abstain, boundary, tuple(slices), notes, status, annotator, now, now
            )
            db.table("queries").insert(query_row(q))
            self.log_event(db, "query-added", annotator, qid)
        return q

    def update_query(self, query_id: str, *, annotator: str, **changes: Any) -> Query:
        """Change query fields (text, boundary, slices, abstain, notes, status)."""
        allowed = {"text", "boundary", "slices", "abstain", "notes", "status"}
        unknown = set(changes) - allowed
        if unknown:
            raise StoreError(f"cannot change {', '.join(sorted(unknown))}", key=sorted(unknown)[0])
        with self.write() as db:
            old = self.query(query_id)
            new = replace(old, **changes, updated=utcnow())
            db.table("queries").update(query_id, query_row(new))
            self.log_event(
                db,
                "query-updated",
                annotator,
                query_id,
                changes={k: str(v) for k, v in changes.items()},
            )
        return new

    def delete_query(self, query_id: str, *, annotator: str) -> Query:
        """Delete a query and its spans; returns it whole so the deletion can be undone."""
        with self.write() as db:
            old = self.query(query_id)
            db.execute("DELETE FROM spans WHERE query_id = ?", [query_id])
            db.execute("DELETE FROM queries WHERE id = ?", [query_id])
            self.log_event(db, "query-deleted", annotator, query_id, spans=len(old.evidence))
        return old

    def restore_query(self, query: Query, texts: Mapping[str, str], *, annotator: str) -> Query:
        """Put back a whole query (undo of a delete), checking every span against `texts`."""
        with self.write() as db:
            if db.execute("SELECT 1 FROM queries WHERE id = ?", [query.id]).fetchone():
                raise StoreError(f"query {query.id} exists again; not overwriting it", key="id")
            self.put_queries([query], texts, db=db)
            self.log_event(db, "query-restored", annotator, query.id)
        return self.query(query.id)

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
            row = query_row(q)
            query_rows.append(tuple(row[c] for c in QUERY_COLUMNS))
            for s in q.evidence:
                if s.doc not in texts:
                    raise StoreError(f"query {q.id}: no text for document {s.doc!r}", key="doc")
                dh = self._checked_hash(s, texts[s.doc], hashes, db)
                span_rows.append((q.id, s.doc, s.start, s.end, s.quote, s.prefix, s.suffix, dh,
                                  s.annotator, s.created))  # fmt: skip
        marks = ",".join("?" * len(QUERY_COLUMNS))
        names = ",".join(QUERY_COLUMNS)
        self.conn.executemany("DELETE FROM spans WHERE query_id = ?", [(r[0],) for r in query_rows])
        self.conn.executemany(
            f"INSERT OR REPLACE INTO queries({names}) VALUES ({marks})", query_rows
        )
        self.conn.executemany(
            'INSERT INTO spans(query_id, doc, start, "end", quote, prefix, suffix, doc_hash, '
            "annotator, created) VALUES (?,?,?,?,?,?,?,?,?,?)",
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

    # -- writing spans -------------------------------------------------------------------

    def _insert_span(self, db: sqlite_utils.Database, query_id: str, span: Span, text: str) -> int:
        dh = self._checked_hash(span, text, {}, db)
        table = db.table("spans")
        table.insert(span_row(query_id, replace(span, doc_hash=dh)))
        return int(table.last_rowid or 0)

    def add_span(self, query_id: str, span: Span, text: str, *, annotator: str) -> Span:
        """Add evidence to a query; `text` is the document's canonical text."""
        with self.write() as db:
            q = self.query(query_id)
            if q.abstain:
                raise StoreError(f"query {query_id} is an abstention query", key="abstain")
            s = replace(
                span, annotator=span.annotator or annotator, created=span.created or utcnow()
            )
            span_id = self._insert_span(db, query_id, s, text)
            db.execute("UPDATE queries SET updated = ? WHERE id = ?", [utcnow(), query_id])
            self.log_event(
                db,
                "span-added",
                annotator,
                query_id,
                span=span_id,
                doc=s.doc,
                start=s.start,
                end=s.end,
            )
        return self.span(span_id)[1]

    def update_span(self, span_id: int, start: int, end: int, text: str, *, annotator: str) -> Span:
        """Move a span's edges within the same document, keeping its id."""
        with self.write() as db:
            query_id, old = self.span(span_id)
            new = Span.from_text(
                text, old.doc, start, end, annotator=old.annotator, created=old.created
            )
            # The text the span is on now is fine too (a span accepted during a review).
            dh = self._checked_hash(new, text, {}, db, also=old.doc_hash)
            row = {**span_row(query_id, replace(new, doc_hash=dh)), "id": span_id}
            db.table("spans").update(span_id, row)
            self.log_event(
                db,
                "span-moved",
                annotator,
                query_id,
                span=span_id,
                old=[old.start, old.end],
                new=[start, end],
            )
        return self.span(span_id)[1]

    def delete_span(self, span_id: int, *, annotator: str) -> tuple[str, Span]:
        with self.write() as db:
            query_id, old = self.span(span_id)
            self.drop_span(span_id, db=db)
            self.log_event(db, "span-deleted", annotator, query_id, span=span_id)
        return query_id, old

    def drop_span(self, span_id: int, *, db: sqlite_utils.Database) -> None:
        """Delete span `span_id` inside the caller's transaction (logging is the caller's)."""
        db.execute("DELETE FROM spans WHERE id = ?", [span_id])

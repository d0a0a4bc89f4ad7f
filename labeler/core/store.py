"""The working label store: SQLite through sqlite-utils, every edit committed at once (§3).

Writes take `BEGIN IMMEDIATE` so concurrent annotators queue on the busy timeout instead
of failing on a lock upgrade; WAL lets readers carry on meanwhile. The store is bound to
a corpus hash and keeps the canonical text of every document a span was drawn on, so
stale spans can be reviewed after the corpus folder changes.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import sqlite_utils

from labeler.core.canonical import NORMALIZATION, corpus_hash, doc_hash
from labeler.core.errors import StoreError
from labeler.core.schema import migrate
from labeler.core.values import Boundary, Query, Span, Status

QUERY_COLUMNS = (
    "id", "text", "abstain", "boundary", "slices", "notes", "status", "annotator", "created",
    "updated",
)  # fmt: skip
SPAN_SELECT = 'query_id, doc, start, "end", quote, prefix, suffix, doc_hash, annotator, created, id'
BUSY_TIMEOUT_MS = 60_000
"""How long a writer waits for another writer before giving up."""


_BOUNDARIES = {b.value: b for b in Boundary}
_STATUSES = {s.value: s for s in Status}
_ROW_SELECT = (
    "SELECT id, text, abstain, boundary, slices, notes, status, annotator, "
    "(SELECT count(*) FROM spans WHERE spans.query_id = queries.id) FROM queries"
)


class QueryRow(NamedTuple):
    """A query as a list shows it: its fields and how many spans it has, not the spans.

    A tuple, not a `Query`: the label screen holds one per query, 100,000 of them.
    """

    id: str
    """The query id."""
    text: str
    """The question."""
    abstain: bool
    """Whether the corpus holds no answer."""
    boundary: Boundary
    """The boundary pattern it exercises."""
    slices: tuple[str, ...]
    """Slices it belongs to."""
    notes: str
    """Free notes."""
    status: Status
    """Draft, labelled or reviewed."""
    annotator: str
    """Who created it."""
    spans: int
    """How many evidence spans it has."""

    @classmethod
    def of(cls, q: Query) -> QueryRow:
        return cls(q.id, q.text, q.abstain, q.boundary, q.slices, q.notes, q.status,
                   q.annotator, len(q.evidence))  # fmt: skip


def utcnow() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _span_from_row(row: Mapping[str, Any]) -> Span:
    return Span(
        doc=row["doc"],
        start=row["start"],
        end=row["end"],
        quote=row["quote"],
        prefix=row["prefix"],
        suffix=row["suffix"],
        doc_hash=row["doc_hash"],
        annotator=row["annotator"],
        created=row["created"],
        id=row["id"],
    )


def _query_from_row(row: Mapping[str, Any], spans: Iterable[Span]) -> Query:
    return Query(
        id=row["id"],
        text=row["text"],
        abstain=bool(row["abstain"]),
        boundary=Boundary(row["boundary"]),
        slices=tuple(json.loads(row["slices"])),
        notes=row["notes"],
        status=Status(row["status"]),
        annotator=row["annotator"],
        created=row["created"],
        updated=row["updated"],
        evidence=tuple(spans),
    )


def _query_row(q: Query) -> dict[str, Any]:
    return {
        "id": q.id,
        "text": q.text,
        "abstain": int(q.abstain),
        "boundary": q.boundary.value,
        "slices": json.dumps(list(q.slices)),
        "notes": q.notes,
        "status": q.status.value,
        "annotator": q.annotator,
        "created": q.created,
        "updated": q.updated,
    }


def _span_row(query_id: str, s: Span) -> dict[str, Any]:
    row: dict[str, Any] = {
        "query_id": query_id,
        "doc": s.doc,
        "start": s.start,
        "end": s.end,
        "quote": s.quote,
        "prefix": s.prefix,
        "suffix": s.suffix,
        "doc_hash": s.doc_hash,
        "annotator": s.annotator,
        "created": s.created,
    }
    if s.id is not None:
        row["id"] = s.id
    return row


class Store:
    """Queries and spans in one SQLite file (or in memory, for tests)."""

    def __init__(self, conn: sqlite3.Connection, *, path: str) -> None:
        self.path = path
        """Where the database lives (`:memory:` for an in-memory store)."""
        self.conn = conn
        self.db = sqlite_utils.Database(conn)
        self._hashed: dict[str, tuple[str, str]] = {}
        """doc id -> (text, hash) last written: an annotator adds many spans to one text."""

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True) -> Store:
        """Open (and migrate) the store at `path`; `create=False` refuses a missing file."""
        name = str(path)
        if name != ":memory:" and not create and not Path(name).exists():
            raise StoreError("no label store here", file=name, hint="run `spanlab init` first")
        try:
            conn = sqlite3.connect(name, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if name != ":memory:":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn, path=name)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the label store: {exc}", file=name) from None
        return cls(conn, path=name)

    @classmethod
    def memory(cls) -> Store:
        return cls.open(":memory:")

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite_utils.Database]:
        """One write transaction, committed on exit (and rolled back on any error)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
            self.conn.execute("COMMIT")
        except BaseException:
            # SQLite may already have rolled back (or COMMIT itself failed): never leave a
            # transaction open, or every later edit of this session would fail.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def data_version(self) -> int:
        """Changes when another connection commits: how the app notices others' edits."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    # -- binding -------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @property
    def corpus_hash(self) -> str | None:
        """The corpus hash the labels are bound to (None before `bind`)."""
        return self.meta("corpus_hash")

    def bound_documents(self) -> dict[str, str]:
        rows = self.conn.execute("SELECT doc, doc_hash FROM bound_documents ORDER BY doc")
        return {r["doc"]: r["doc_hash"] for r in rows}

    def bind(
        self, documents: Mapping[str, str], *, db: sqlite_utils.Database | None = None
    ) -> None:
        """Bind the store to a corpus given as {doc id: doc hash}."""
        if db is None:
            with self.write() as wdb:
                self.bind(documents, db=wdb)
            return
        chash = corpus_hash(documents.items())
        db.execute("DELETE FROM bound_documents")
        db.table("bound_documents").insert_all(
            [{"doc": d, "doc_hash": h} for d, h in sorted(documents.items())]
        )
        for key, value in (("corpus_hash", chash), ("normalization", NORMALIZATION)):
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [key, value])

    def keep_text(self, doc_hash: str, text: str, *, db: sqlite_utils.Database) -> None:
        """Remember a document text a span was drawn on (content-addressed)."""
        sql = "INSERT OR IGNORE INTO doc_texts(doc_hash, text) VALUES (?, ?)"
        db.execute(sql, [doc_hash, text])

    def doc_text(self, doc_hash: str) -> str | None:
        row = self.conn.execute("SELECT text FROM doc_texts WHERE doc_hash = ?", (doc_hash,))
        found = row.fetchone()
        return None if found is None else str(found[0])

    # -- reading -------------------------------------------------------------------------

    def _span_rows(self, where: str = "", args: Sequence[Any] = ()) -> list[tuple[str, Span]]:
        """(query id, span) pairs in document order; plain tuples, for speed at 200k spans."""
        cur = self.conn.cursor()
        cur.row_factory = None
        cur.execute(
            f'SELECT {SPAN_SELECT} FROM spans {where} ORDER BY doc, start, "end", id', list(args)
        )
        return [
            (r[0], Span(r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10]))
            for r in cur.fetchall()
        ]

    def _spans_by_query(self, query_ids: list[str] | None) -> dict[str, list[Span]]:
        out: dict[str, list[Span]] = {}
        if query_ids is None:
            rows = self._span_rows()
        else:
            marks = ",".join("?" * len(query_ids))
            rows = self._span_rows(f"WHERE query_id IN ({marks})", query_ids)
        for query_id, span in rows:
            out.setdefault(query_id, []).append(span)
        return out

    def queries(self) -> list[Query]:
        """Every query with its evidence, ordered by id."""
        spans = self._spans_by_query(None)
        rows = self.conn.execute("SELECT * FROM queries ORDER BY id")
        return [_query_from_row(r, spans.get(r["id"], ())) for r in rows]

    def query(self, query_id: str) -> Query:
        row = self.conn.execute("SELECT * FROM queries WHERE id = ?", (query_id,)).fetchone()
        if row is None:
            raise StoreError(f"no query {query_id!r}", key="query")
        return _query_from_row(row, self._spans_by_query([query_id]).get(query_id, ()))

    def query_rows(
        self, *, start: str | None = None, after: str | None = None, limit: int | None = None
    ) -> list[QueryRow]:
        """Queries in id order without their spans, from id `start` on or past id `after`.

        Keyset paging (`after` = the last id read) costs the same on every page, so a list
        can show its first page at once and read the rest a chunk at a time.
        """
        where, args = [], []
        for op, bound in ((">=", start), (">", after)):
            if bound is not None:
                where.append(f"id {op} ?")
                args.append(bound)
        sql = _ROW_SELECT + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        cur = self.conn.cursor()
        cur.row_factory = None
        # Few distinct slice lists recur: decode each JSON text once per call.
        slices: dict[str, tuple[str, ...]] = {"[]": ()}
        out = []
        for r in cur.execute(sql, args):
            sl = slices.get(r[4])
            if sl is None:
                sl = slices[r[4]] = tuple(json.loads(r[4]))
            out.append(QueryRow(r[0], r[1], bool(r[2]), _BOUNDARIES[r[3]], sl, r[5],
                                _STATUSES[r[6]], r[7], r[8]))  # fmt: skip
        return out

    def last_event_id(self) -> int:
        """The newest audit-log entry (0 when none): where `touched_since` reads on from."""
        return int(self.conn.execute("SELECT coalesce(max(id), 0) FROM events").fetchone()[0])

    def touched_since(self, event_id: int) -> tuple[int, list[str]]:
        """The newest entry's id and the queries named in audit-log entries after `event_id`.

        Every edit through the store logs one, so a reader can re-read just those queries
        after another connection commits; bulk writes (`put_queries`) log nothing.
        """
        rows = self.conn.execute(
            "SELECT id, query_id FROM events WHERE id > ? ORDER BY id", (event_id,)
        ).fetchall()
        touched = dict.fromkeys(r[1] for r in rows if r[1] is not None)
        return (rows[-1][0] if rows else event_id), list(touched)

    def doc_span_counts(self) -> dict[str, int]:
        """How many spans each document holds, over every query."""
        rows = self.conn.execute("SELECT doc, count(*) FROM spans GROUP BY doc ORDER BY doc")
        return {r[0]: int(r[1]) for r in rows}

    def label_rows(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """Raw (queries, spans) rows for bulk export: values were validated when written.

        Queries: id, text, abstain, boundary, slices (JSON), status, notes, in id order.
        Spans: query_id, doc, start, end, quote, prefix, suffix, in document order.
        """
        cur = self.conn.cursor()
        cur.row_factory = None
        cur.execute("BEGIN")  # one snapshot for both reads
        try:
            queries = cur.execute(
                "SELECT id, text, abstain, boundary, slices, status, notes FROM queries ORDER BY id"
            ).fetchall()
            spans = cur.execute(
                'SELECT query_id, doc, start, "end", quote, prefix, suffix FROM spans '
                'ORDER BY doc, start, "end", id'
            ).fetchall()
        finally:
            cur.execute("COMMIT")
        return queries, spans

    def spans_off_binding(self) -> list[tuple[str, Span]]:
        """Spans whose document is not bound, or whose text is not the bound one."""
        return self._span_rows(
            "WHERE NOT EXISTS (SELECT 1 FROM bound_documents b "
            "WHERE b.doc = spans.doc AND b.doc_hash = spans.doc_hash)"
        )

    def spans(self, docs: Iterable[str] | None = None) -> list[tuple[str, Span]]:
        """Every span with its query id (only those in `docs`, when given)."""
        if docs is None:
            return self._span_rows()
        wanted = sorted(set(docs))
        if not wanted:
            return []
        return self._span_rows(f"WHERE doc IN ({','.join('?' * len(wanted))})", wanted)

    def span(self, span_id: int) -> tuple[str, Span]:
        row = self.conn.execute("SELECT * FROM spans WHERE id = ?", (span_id,)).fetchone()
        if row is None:
            raise StoreError(f"no span {span_id}", key="span")
        return row["query_id"], _span_from_row(row)

    def count(self, table: str) -> int:
        return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    # -- writing queries -----------------------------------------------------------------

    def next_query_id(self) -> str:
        rows = self.conn.execute("SELECT id FROM queries WHERE id GLOB 'q-[0-9]*'")
        numbers = [int(r[0][2:]) for r in rows if r[0][2:].isdigit()]
        return f"q-{max(numbers, default=0) + 1:04d}"

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
            db.table("queries").insert(_query_row(q))
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
            db.table("queries").update(query_id, _query_row(new))
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
            row = _query_row(q)
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
        table.insert(_span_row(query_id, replace(span, doc_hash=dh)))
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
            row = {**_span_row(query_id, replace(new, doc_hash=dh)), "id": span_id}
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
            db.execute("DELETE FROM spans WHERE id = ?", [span_id])
            self.log_event(db, "span-deleted", annotator, query_id, span=span_id)
        return query_id, old

"""Everything the store reads, each answer a value: queries, spans, binding, decisions.

Span lists are read as plain tuples and queries page by keyset, because the app reads
100,000 queries and 200,000 spans; nothing here writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from labeler.core.errors import SpanlabError, StoreError
from labeler.core.progress import Advance
from labeler.core.store import cells
from labeler.core.store.connection import Connection
from labeler.core.store.rows import (
    EVENT,
    Decision,
    QueryRow,
    decision_from_row,
    query_from_row,
    span_from_row,
)
from labeler.core.values import MAX_NOTES, Boundary, Query, Span, Status

SPAN_SELECT = (
    'query_id, doc, start, "end", quote, prefix, suffix, doc_hash, annotator, created, id, grp'
)
_QUERY = (
    f"SELECT id, {cells.TEXT}, abstain, boundary, slices, {cells.NOTES}, status, annotator, "
    "created, updated, revision, facts FROM queries"
)
"""A query's own row, its long texts cut in SQL (`cells`)."""
_BOUNDARIES = {b.value: b for b in Boundary}
_STATUSES = {s.value: s for s in Status}
_ROW_SELECT = (
    f"SELECT id, {cells.TEXT}, abstain, boundary, slices, {cells.NOTES}, status, annotator, "
    "(SELECT count(*) FROM spans WHERE spans.query_id = queries.id AND version = ?) FROM queries"
)
# A blind annotator's rows: their version's fields over the query's (§3). Without a version
# yet, the query's own fields are where their version will start, and it is a draft.
_VIEW_SELECT = (
    f"SELECT queries.id, {cells.TEXT}, coalesce(v.abstain, queries.abstain), "
    "coalesce(v.boundary, queries.boundary), coalesce(v.slices, queries.slices), "
    f"substr(coalesce(v.notes, queries.notes), 1, {MAX_NOTES + 1}), "
    "coalesce(v.status, 'draft'), queries.annotator, "
    "(SELECT count(*) FROM spans WHERE spans.query_id = queries.id AND version = ?) "
    "FROM queries LEFT JOIN versions v ON v.query_id = queries.id AND v.annotator = ?"
)
_VIEW_QUERY = (
    f"SELECT queries.id, {cells.TEXT}, coalesce(v.abstain, queries.abstain) AS abstain, "
    "coalesce(v.boundary, queries.boundary) AS boundary, coalesce(v.slices, queries.slices) "
    f"AS slices, substr(coalesce(v.notes, queries.notes), 1, {MAX_NOTES + 1}) AS notes, "
    "coalesce(v.status, 'draft') AS status, queries.annotator, created, queries.updated, "
    "queries.revision, '[]' AS facts "  # the query's facts are not blind: not shown
    "FROM queries LEFT JOIN versions v ON v.query_id = queries.id "
    "AND v.annotator = ?"
)


class Reads(Connection):
    """The store's reads; the write layers build on them."""

    view: str = ""
    """Which version of evidence reads show and span edits write: '' is each query's own
    evidence; an annotator's name is their blind version (double annotation, §3)."""

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

    def bound_document(self, doc: str) -> str | None:
        """The hash `doc` is bound to (None: not bound), without reading the whole binding."""
        row = self.conn.execute("SELECT doc_hash FROM bound_documents WHERE doc = ?", (doc,))
        found = row.fetchone()
        return None if found is None else str(found[0])

    def doc_text(self, doc_hash: str) -> str | None:
        row = self.conn.execute("SELECT text FROM doc_texts WHERE doc_hash = ?", (doc_hash,))
        found = row.fetchone()
        return None if found is None else str(found[0])

    # -- reading -------------------------------------------------------------------------

    def _span_rows(
        self, where: str = "", args: Sequence[Any] = (), *, every: bool = False
    ) -> list[tuple[str, Span]]:
        """(query id, span) pairs in document order; plain tuples, for speed at 200k spans.

        Only the spans of the version in `view`, unless `every`.
        """
        if not every:
            where = f"{where} AND version = ?" if where else "WHERE version = ?"
            args = [*args, self.view]
        cur = self.conn.cursor()
        cur.row_factory = None
        cur.execute(
            f'SELECT {SPAN_SELECT} FROM spans {where} ORDER BY doc, start, "end", id', list(args)
        )
        rows = cur.fetchall()
        try:
            return [(r[0], Span(*r[1:12])) for r in rows]
        except (SpanlabError, TypeError, ValueError):  # a row written by hand: name it
            return [(r[0], cells.span(r)) for r in rows]

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

    def queries(self, advance: Advance | None = None) -> list[Query]:
        """Every query with its evidence, ordered by id; `advance`d by one a query built
        (200,000 of them take 10 s: a plan or an eval says how far it is)."""
        spans = self._spans_by_query(None)
        rows = self._query_select("ORDER BY queries.id")
        if advance is None:
            return [query_from_row(r, spans.get(r["id"], ())) for r in rows]
        out = []
        for r in rows:
            out.append(query_from_row(r, spans.get(r["id"], ())))
            advance(1)
        return out

    def _query_select(self, tail: str, args: Sequence[Any] = ()) -> list[Any]:
        """Query rows as `view` shows them: a blind annotator's version over the query."""
        if not self.view:
            return self.conn.execute(f"{_QUERY} {tail}", list(args)).fetchall()
        return self.conn.execute(f"{_VIEW_QUERY} {tail}", [self.view, *args]).fetchall()

    def query(self, query_id: str) -> Query:
        found = self._query_select("WHERE queries.id = ?", (query_id,))
        row = found[0] if found else None
        if row is None:
            raise StoreError(f"no query {query_id!r}", key="query")
        return query_from_row(row, self._spans_by_query([query_id]).get(query_id, ()))

    def query_rows(
        self, *, start: str | None = None, after: str | None = None, limit: int | None = None
    ) -> list[QueryRow]:
        """Queries in id order without their spans, from id `start` on or past id `after`.

        Keyset paging (`after` = the last id read) costs the same on every page, so a list
        can show its first page at once and read the rest a chunk at a time.
        """
        where: list[str] = []
        args: list[str] = [self.view, self.view] if self.view else [self.view]
        for op, bound in ((">=", start), (">", after)):
            if bound is not None:
                where.append(f"queries.id {op} ?")
                args.append(bound)
        select = _VIEW_SELECT if self.view else _ROW_SELECT
        sql = select + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY queries.id"
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
                sl = slices[r[4]] = cells.slices("queries", r[0], r[4])
            boundary = _BOUNDARIES.get(r[3]) or cells.member(Boundary, "queries", r[0],
                                                             "boundary", r[3])  # fmt: skip
            status = _STATUSES.get(r[6]) or cells.member(Status, "queries", r[0], "status", r[6])
            out.append(QueryRow(r[0], r[1], bool(r[2]), boundary, sl, r[5], status, r[7], r[8]))
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

    def last_event(self, query_id: str) -> tuple[str, str, str, dict[str, Any]] | None:
        """(who, kind, when, payload) of the newest audit-log entry on a query, or None."""
        row = self.conn.execute(
            "SELECT annotator, kind, at, payload FROM events WHERE query_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (query_id,),
        ).fetchone()
        return None if row is None else (row[0], row[1], row[2], json.loads(row[3]))

    def deleted_by(self, query_id: str) -> tuple[str, str] | None:
        """(who, when) deleted a query, or None when it was never deleted."""
        row = self.conn.execute(
            "SELECT annotator, at FROM retired_ids WHERE id = ?", (query_id,)
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def doc_span_counts(self) -> dict[str, int]:
        """How many spans each document holds, over every query."""
        sql = "SELECT doc, count(*) FROM spans WHERE version = ? GROUP BY doc ORDER BY doc"
        rows = self.conn.execute(sql, (self.view,))
        return {r[0]: int(r[1]) for r in rows}

    def work_by_annotator(self) -> dict[str, dict[str, int]]:
        """Who did what, per annotator: queries created, spans added (this view), queries
        marked reviewed (from the audit log), adjudication decisions (keep, merge, send
        back) and stale spans resolved (accepted or orphaned, and not undone since)."""
        view = (self.view,)
        sqls = {
            "queries": "SELECT annotator, count(*) FROM queries GROUP BY annotator",
            "spans": "SELECT annotator, count(*) FROM spans WHERE version = ? GROUP BY annotator",
            "reviewed": "SELECT annotator, count(DISTINCT query_id) FROM events WHERE kind = "
            "'query-updated' AND json_extract(payload, '$.changes.status') = 'reviewed' "
            "GROUP BY annotator",
            "adjudicated": "SELECT annotator, count(*) FROM adjudications GROUP BY annotator",
            # the last decision on each span per corpus change, unless it was an undo
            "resolved": "SELECT annotator, count(*) FROM (SELECT annotator, decision, "
            "row_number() OVER (PARTITION BY span_id, new_corpus_hash ORDER BY id DESC) AS n "
            "FROM review_decisions) WHERE n = 1 AND decision != 'undo' GROUP BY annotator",
        }
        work: dict[str, dict[str, int]] = {}
        for what, sql in sqls.items():
            for who, n in self.conn.execute(sql, view if "?" in sql else ()):
                work.setdefault(who or "(unknown)", dict.fromkeys(sqls, 0))[what] += int(n)
        return dict(sorted(work.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])))

    def label_rows(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """Raw (queries, spans) rows for bulk export, each column checked (`cells`): a row
        written by hand is refused by table, row and column.

        Queries: id, text, abstain, boundary, slices (JSON), status, notes, facts (JSON),
        in id order.
        Spans: query_id, doc, start, end, quote, prefix, suffix, in document order; only
        each query's own evidence (version ''), not annotators' blind versions.
        """
        cur = self.conn.cursor()
        cur.row_factory = None
        cur.execute("BEGIN")  # one snapshot for both reads
        try:
            queries = cur.execute(
                f"SELECT id, {cells.TEXT}, abstain, boundary, slices, status, {cells.NOTES}, "
                "facts FROM queries ORDER BY id"
            ).fetchall()
            spans = cur.execute(
                'SELECT query_id, doc, start, "end", quote, prefix, suffix, grp FROM spans '
                "WHERE version = '' ORDER BY doc, start, \"end\", id"
            ).fetchall()
        finally:
            cur.execute("COMMIT")
        self._check_label_rows(queries, spans)
        return queries, spans

    def _check_label_rows(self, queries: list[Any], spans: list[Any]) -> None:
        """Rows as spanlab writes them, asked of SQLite in one pass each (export stays in
        its §12 time); only a row found otherwise is checked in Python, to name it."""
        bad = {str(r[0]) for r in self.conn.execute(cells.ODD_QUERIES)}
        for q in (q for q in queries if str(q[0]) in bad):
            cells.label_row(q)
        if self.conn.execute(cells.ODD_SPANS).fetchone() is None:
            return
        for sp in spans:
            for column, value, kind in zip(
                cells.SPAN_COLUMNS, sp[:7], cells.SPAN_KINDS, strict=True
            ):
                cells.typed(kind, "spans", f"of query {sp[0]}", column, value)
            cells.group(f"of query {sp[0]}", sp[7])

    def spans_off_binding(self) -> list[tuple[str, Span]]:
        """Spans whose document is not bound, or whose text is not the bound one."""
        return self._span_rows(
            "WHERE NOT EXISTS (SELECT 1 FROM bound_documents b "
            "WHERE b.doc = spans.doc AND b.doc_hash = spans.doc_hash)",
            every=True,
        )

    def spans(
        self, docs: Iterable[str] | None = None, *, every: bool = False
    ) -> list[tuple[str, Span]]:
        """Every span with its query id (only those in `docs`, when given), of the version
        in `view` or, with `every`, of every version."""
        if docs is None:
            return self._span_rows(every=every)
        wanted = sorted(set(docs))
        if not wanted:
            return []
        where = f"WHERE doc IN ({','.join('?' * len(wanted))})"
        return self._span_rows(where, wanted, every=every)

    def span(self, span_id: int) -> tuple[str, Span]:
        row = self.conn.execute("SELECT * FROM spans WHERE id = ?", (span_id,)).fetchone()
        if row is None:
            raise StoreError(f"no span {span_id}", key="span")
        return row["query_id"], span_from_row(row)

    def count(self, table: str) -> int:
        return int(self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

    def next_query_id(self) -> str:
        """The `q-NNNN` the next created query would get (deleted ids are never reused).

        Only a preview: ids are taken by `allocate_query_id` inside the write transaction.
        """
        last = int(self.meta("last_query_number") or 0)
        return f"q-{max(last, self._max_query_number()) + 1:04d}"

    def _max_query_number(self) -> int:
        rows = self.conn.execute("SELECT id FROM queries WHERE id GLOB 'q-[0-9]*'")
        return max((int(r[0][2:]) for r in rows if r[0][2:].isdigit()), default=0)

    def retired(self, query_id: str) -> bool:
        """Whether `query_id` belonged to a deleted query (it stays retired)."""
        sql = "SELECT 1 FROM retired_ids WHERE id = ?"
        return self.conn.execute(sql, (query_id,)).fetchone() is not None

    def slices_in_use(self) -> list[str]:
        """Every slice some query carries, the most used first (then by name): what a slice
        field completes from."""
        rows = self.conn.execute(
            "SELECT j.value FROM queries, json_each(queries.slices) AS j "
            "GROUP BY j.value ORDER BY count(*) DESC, j.value"
        )
        return [str(r[0]) for r in rows]

    # -- review decisions ----------------------------------------------------------------

    def query_texts(self, ids: set[str]) -> dict[str, str]:
        """{query id: question} for the queries in `ids`."""
        rows = self.conn.execute("SELECT id, text FROM queries")
        return {r["id"]: r["text"] for r in rows if r["id"] in ids}

    def decisions(self) -> list[Decision]:
        """Every review decision ever made, oldest first."""
        rows = self.conn.execute("SELECT * FROM review_decisions ORDER BY id")
        return [decision_from_row(r) for r in rows]

    def decision(self, decision_id: int) -> Decision:
        sql = "SELECT * FROM review_decisions WHERE id = ?"
        row = self.conn.execute(sql, (decision_id,)).fetchone()
        if row is None:
            raise StoreError(f"no review decision {decision_id}", key="decision")
        return decision_from_row(row)

    def latest_decision(self, span_id: int) -> int | None:
        """The id of the newest decision on span `span_id` (None when there is none)."""
        sql = "SELECT max(id) FROM review_decisions WHERE span_id = ?"
        latest = self.conn.execute(sql, (span_id,)).fetchone()[0]
        return None if latest is None else int(latest)

    def decision_added(self, decision: Decision) -> list[int]:
        """The spans `decision` added as alternatives of its span (§18), if any."""
        row = self.conn.execute(
            "SELECT json_extract(payload, '$.added') FROM events WHERE kind = ? AND "
            "json_extract(payload, '$.decision') = ?",
            (EVENT[decision.kind], decision.id),
        ).fetchone()
        return [] if row is None or row[0] is None else [int(i) for i in json.loads(row[0])]

    def decided_span(self, decision: Decision) -> Span:
        """The span exactly as it was before `decision`, from the event written with it."""
        sql = (
            "SELECT payload FROM events WHERE kind = ? AND json_extract(payload, '$.decision') = ?"
        )
        row = self.conn.execute(sql, (EVENT[decision.kind], decision.id)).fetchone()
        if row is None:
            raise StoreError(
                f"decision {decision.id} has no recorded span to restore", key="decision"
            )
        return Span(**json.loads(row[0])["span"])

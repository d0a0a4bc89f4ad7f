"""The store's schema, changed only through numbered migrations.

`PRAGMA user_version` holds the schema version; each migration runs once, in its own
transaction, so a store opened by a newer spanlab is upgraded in place and an older
spanlab refuses a store it does not understand.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable

from labeler.core.errors import StoreError
from labeler.core.files.foreign_schema import Foreign as Foreign
from labeler.core.files.foreign_schema import foreign_objects as foreign_in
from labeler.core.files.foreign_schema import objects

Migration = Callable[[sqlite3.Connection], None]


def _run(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the migration's transaction first; run statements one by one.
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def _m1_initial(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE bound_documents (doc TEXT PRIMARY KEY, doc_hash TEXT NOT NULL);
        CREATE TABLE doc_texts (doc_hash TEXT PRIMARY KEY, text TEXT NOT NULL);
        CREATE TABLE queries (
            id TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            abstain INTEGER NOT NULL DEFAULT 0,
            boundary TEXT NOT NULL,
            slices TEXT NOT NULL DEFAULT '[]',
            notes TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL,
            annotator TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            updated TEXT NOT NULL
        );
        CREATE TABLE spans (
            id INTEGER PRIMARY KEY,
            query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
            doc TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            quote TEXT NOT NULL,
            prefix TEXT NOT NULL,
            suffix TEXT NOT NULL,
            doc_hash TEXT NOT NULL,
            annotator TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            CHECK (start >= 0 AND "end" > start)
        );
        CREATE INDEX spans_query ON spans(query_id);
        CREATE INDEX spans_doc ON spans(doc, start);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            annotator TEXT NOT NULL,
            kind TEXT NOT NULL,
            query_id TEXT,
            payload TEXT NOT NULL
        );
        CREATE TABLE review_decisions (
            id INTEGER PRIMARY KEY,
            span_id INTEGER NOT NULL,
            query_id TEXT NOT NULL,
            decision TEXT NOT NULL,
            old_doc TEXT NOT NULL,
            old_start INTEGER NOT NULL,
            old_end INTEGER NOT NULL,
            old_quote TEXT NOT NULL,
            new_start INTEGER,
            new_end INTEGER,
            old_corpus_hash TEXT NOT NULL,
            new_corpus_hash TEXT NOT NULL,
            annotator TEXT NOT NULL,
            at TEXT NOT NULL
        );
        """,
    )


def _m2_revisions_and_retired_ids(conn: sqlite3.Connection) -> None:
    """Compare-and-set and ids never reused (§3): a revision per query, retired query ids,
    the last query number handed out, and span ids that AUTOINCREMENT never hands out twice.
    """
    _run(
        conn,
        """
        ALTER TABLE queries ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
        CREATE TABLE retired_ids (
            id TEXT PRIMARY KEY, annotator TEXT NOT NULL, at TEXT NOT NULL
        );
        INSERT OR REPLACE INTO meta(key, value) SELECT 'last_query_number',
            coalesce(max(CAST(substr(id, 3) AS INTEGER)), 0) FROM queries
            WHERE id GLOB 'q-[0-9]*' AND substr(id, 3) NOT GLOB '*[^0-9]*';
        CREATE TABLE spans_v2 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
            doc TEXT NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            quote TEXT NOT NULL,
            prefix TEXT NOT NULL,
            suffix TEXT NOT NULL,
            doc_hash TEXT NOT NULL,
            annotator TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            CHECK (start >= 0 AND "end" > start)
        );
        INSERT INTO spans_v2 SELECT id, query_id, doc, start, "end", quote, prefix, suffix,
            doc_hash, annotator, created FROM spans;
        DROP TABLE spans;
        ALTER TABLE spans_v2 RENAME TO spans;
        CREATE INDEX spans_query ON spans(query_id);
        CREATE INDEX spans_doc ON spans(doc, start);
        CREATE INDEX events_query ON events(query_id, id)
        """,
    )


def _m3_double_annotation(conn: sqlite3.Connection) -> None:
    """Double annotation (§3): a span belongs to a version ('' is the query's evidence, else
    the annotator's blind version); versions, assignments and adjudications get tables.
    """
    _run(
        conn,
        """
        ALTER TABLE spans ADD COLUMN version TEXT NOT NULL DEFAULT '';
        CREATE INDEX spans_version ON spans(version, query_id);
        CREATE TABLE versions (
            query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
            annotator TEXT NOT NULL,
            abstain INTEGER NOT NULL DEFAULT 0,
            updated TEXT NOT NULL,
            PRIMARY KEY (query_id, annotator)
        );
        CREATE TABLE assignments (
            query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
            annotator TEXT NOT NULL,
            assigned_by TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (query_id, annotator)
        );
        CREATE INDEX assignments_annotator ON assignments(annotator, query_id);
        CREATE TABLE adjudications (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            query_id TEXT NOT NULL,
            decision TEXT NOT NULL,
            versions TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            revision INTEGER NOT NULL,
            annotator TEXT NOT NULL,
            at TEXT NOT NULL
        )
        """,
    )


def _m4_whole_versions(conn: sqlite3.Connection) -> None:
    """A version is the whole annotation (§3): its own pattern, slices, notes, status and a
    revision. A version made before starts from the query's fields, which it then shared.
    """
    _run(
        conn,
        """
        ALTER TABLE versions ADD COLUMN boundary TEXT NOT NULL DEFAULT 'other';
        ALTER TABLE versions ADD COLUMN slices TEXT NOT NULL DEFAULT '[]';
        ALTER TABLE versions ADD COLUMN notes TEXT NOT NULL DEFAULT '';
        ALTER TABLE versions ADD COLUMN status TEXT NOT NULL DEFAULT 'labelled';
        ALTER TABLE versions ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
        UPDATE versions SET
            boundary = (SELECT q.boundary FROM queries q WHERE q.id = versions.query_id),
            slices = (SELECT q.slices FROM queries q WHERE q.id = versions.query_id),
            notes = (SELECT q.notes FROM queries q WHERE q.id = versions.query_id)
        """,
    )


def _m5_audit(conn: sqlite3.Connection) -> None:
    """Changes made around spanlab show (§20): events chain by digest, every kept row has
    one; what the store holds when it migrates is taken as spanlab's."""
    from labeler.core.store import digests  # the store imports this module

    _run(
        conn,
        """
        ALTER TABLE events ADD COLUMN digest TEXT;
        CREATE TABLE row_digests (
            tbl TEXT NOT NULL,
            key TEXT NOT NULL,
            digest TEXT NOT NULL,
            by TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (tbl, key)
        )
        """,
    )
    digests.seal_all(conn)


def _m6_evidence_groups(conn: sqlite3.Connection) -> None:
    """Alternatives (§18): a span may carry a group number (NULL: a group of its own). A
    span row whose digest held before is digested anew with the new column; one changed
    around spanlab keeps the digest it had, so the audit still names it."""
    from labeler.core.store import digests  # the store imports this module

    held = digests.holding(conn, "spans")
    _run(conn, "ALTER TABLE spans ADD COLUMN grp INTEGER")
    digests.reseal(conn, "spans", held)


def _m7_facts(conn: sqlite3.Connection) -> None:
    """Answer labels (§23): a query carries the facts a complete answer states, a JSON list
    of lists of phrasings ('[]': none, what every older query reads as). Rows whose digest
    held are resealed with the new column, as in `_m6_evidence_groups`."""
    from labeler.core.store import digests  # the store imports this module

    held = digests.holding(conn, "queries")
    _run(conn, "ALTER TABLE queries ADD COLUMN facts TEXT NOT NULL DEFAULT '[]'")
    digests.reseal(conn, "queries", held)


MIGRATIONS: tuple[Migration, ...] = (
    _m1_initial,
    _m2_revisions_and_retired_ids,
    _m3_double_annotation,
    _m4_whole_versions,
    _m5_audit,
    _m6_evidence_groups,
    _m7_facts,
)
"""Applied in order; the schema version is the number applied."""

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, *, path: str) -> int:
    """Bring the database up to SCHEMA_VERSION; return the version found before."""
    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if found > SCHEMA_VERSION:
        raise StoreError(
            f"the store has schema version {found}, newer than this spanlab knows "
            f"({SCHEMA_VERSION})",
            file=path,
            hint="upgrade spanlab",
        )
    for version in range(found, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            now = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if now <= version:
                MIGRATIONS[version](conn)
                conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return found


@functools.cache
def expected(version: int = -1) -> dict[tuple[str, str], str]:
    """What spanlab's own migrations (the first `version`, all by default) create: run once
    on an in-memory database, so the list lives nowhere but in the migrations."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        for migration in MIGRATIONS[: version if version >= 0 else None]:
            migration(conn)
        return objects(conn)
    finally:
        conn.close()


def foreign_objects(conn: sqlite3.Connection, version: int = -1) -> tuple[Foreign, ...]:
    """Triggers, views, tables and indexes spanlab did not create: one query, every open."""
    return foreign_in(conn, expected(version))

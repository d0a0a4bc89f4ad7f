"""Digests that make a change made to the store around spanlab visible (§20): a hash chain
over the event log and one digest per row of the tables spanlab keeps, refreshed inside
every write's own transaction.

Which rows a write touched is noted by TEMP triggers, which live in this connection and
never in the file: a new kind of write is covered without remembering it, and a write
rehashes only the rows it changed. The digests are plain sha256, not a signature: anyone
who recomputes them can hide an edit (the README says so).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from labeler.core.files.access import name_of_user
from labeler.core.progress import Advance


def _quiet(n: int) -> None:
    """An `Advance` that counts nothing."""


KEYS: dict[str, tuple[str, ...]] = {
    "queries": ("id",),
    "spans": ("id",),
    "versions": ("query_id", "annotator"),
    "assignments": ("query_id", "annotator"),
    "adjudications": ("id",),
    "review_decisions": ("id",),
    "retired_ids": ("id",),
    "meta": ("key",),
    "bound_documents": ("doc",),
}
"""The tables whose rows carry a digest, and each one's key columns (the row's name)."""

EVENT_FIELDS = ("id", "at", "annotator", "kind", "query_id", "payload")
"""What an event's link in the chain covers (every column but the digest itself)."""

HEAD = ("event-log", "head")
"""The `row_digests` entry holding the last event's id and digest: a cut tail shows."""

DIRTY = "spanlab_dirty"
"""The TEMP table the TEMP triggers note touched rows in."""


def _text(value: Any) -> Any:
    return {"blob": bytes(value).hex()} if isinstance(value, bytes | memoryview) else value


def canonical(values: Iterable[Any]) -> str:
    """Values as one JSON text: the same row always gives the same text."""
    return json.dumps(
        [_text(v) for v in values], ensure_ascii=False, separators=(",", ":"), default=str
    )


def row_digest(table: str, row: Sequence[Any]) -> str:
    """sha256 of the row's `repr`: exact for SQLite's five types, and fast (an import
    digests every row it writes)."""
    return hashlib.sha256(repr((table, *row)).encode()).hexdigest()


def event_digest(previous: str, row: Sequence[Any]) -> str:
    """The event's link: its own fields and the digest of the event before it."""
    return hashlib.sha256(repr((previous, *row)).encode()).hexdigest()


def writer() -> str:
    """Who is writing: the login (§15), which the audit names for each row's last write."""
    return name_of_user(os.geteuid())


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def watch(conn: sqlite3.Connection) -> None:
    """Create this connection's TEMP triggers that note every row a write touches."""
    # No key: an outer statement's conflict clause (an upsert) overrides the trigger's own.
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {DIRTY} (tbl TEXT, key TEXT)")
    every = (("INSERT", ("NEW",)), ("UPDATE", ("OLD", "NEW")), ("DELETE", ("OLD",)))
    for table, cols in (*KEYS.items(), ("events", ("id",))):
        # The log is append-only: spanlab never changes or deletes an event.
        for op, rows in every[:1] if table == "events" else every:
            notes = "".join(
                f"INSERT INTO {DIRTY} VALUES ('{table}', json_array("
                + ", ".join(f'{r}."{c}"' for c in cols) + "));"
                for r in rows
            )  # fmt: skip
            conn.execute(f"CREATE TEMP TRIGGER IF NOT EXISTS spanlab_{table}_{op.lower()} "
                         f"AFTER {op} ON main.{table} BEGIN {notes} END")  # fmt: skip


def touched(conn: sqlite3.Connection) -> int:
    """How many rows the open write touched so far (what `refresh` will rehash)."""
    return int(conn.execute(f"SELECT count(*) FROM (SELECT DISTINCT tbl, key FROM temp.{DIRTY})"
                            ).fetchone()[0])  # fmt: skip


def refresh(conn: sqlite3.Connection, advance: Advance = _quiet) -> None:
    """Inside a write, before its COMMIT: rehash the rows it touched, chain its events
    (`advance`d by one a row)."""
    dirty = conn.execute(f"SELECT DISTINCT tbl, key FROM temp.{DIRTY}").fetchall()
    if not dirty:
        return
    by, at = writer(), now()
    events = sorted(json.loads(key)[0] for tbl, key in dirty if tbl == "events")
    for table in KEYS:
        keys = [json.loads(key) for tbl, key in dirty if tbl == table]
        if keys:
            _rehash(conn, table, keys, by, at, advance)
    if events:
        chain(conn, events, by, at, advance)
    conn.execute(f"DELETE FROM temp.{DIRTY}")


def _rehash(
    conn: sqlite3.Connection,
    table: str,
    keys: list[list[Any]],
    by: str,
    at: str,
    advance: Advance = _quiet,
) -> None:
    put, gone = [], []
    for name, row in _rows(conn, table, keys):
        advance(1)
        if row is None:
            gone.append((table, name))
        else:
            put.append((table, name, row_digest(table, tuple(row)), by, at))
    conn.executemany("DELETE FROM main.row_digests WHERE tbl = ? AND key = ?", gone)
    conn.executemany("INSERT OR REPLACE INTO main.row_digests VALUES (?, ?, ?, ?, ?)", put)


BULK = 500
"""Past this many touched rows, one scan of the table beats a lookup per row (an import)."""


def _rows(conn: sqlite3.Connection, table: str, keys: list[list[Any]]) -> Iterable[tuple[str, Any]]:
    """(key name, row or None) for each touched key."""
    if len(keys) <= BULK:
        where = " AND ".join(f'"{c}" = ?' for c in KEYS[table])
        for key in keys:
            yield (
                canonical(key),
                conn.execute(f"SELECT * FROM main.{table} WHERE {where}", key).fetchone(),
            )
        return
    wanted = {canonical(k) for k in keys}
    cur = conn.execute(f"SELECT * FROM main.{table}")
    at = [[d[0] for d in cur.description].index(c) for c in KEYS[table]]
    for row in cur:
        name = canonical(row[i] for i in at)
        if name in wanted:
            wanted.discard(name)
            yield name, row
    yield from ((name, None) for name in wanted)


def chain(
    conn: sqlite3.Connection, ids: list[int], by: str, at: str, advance: Advance = _quiet
) -> None:
    """Link events `ids` (ascending, the newest of the log) onto the chain."""
    before = conn.execute(
        "SELECT digest FROM main.events WHERE id < ? ORDER BY id DESC LIMIT 1", [ids[0]]
    ).fetchone()
    previous = str(before[0] or "") if before is not None else ""
    fields = ", ".join(f'"{f}"' for f in EVENT_FIELDS)
    for event_id in ids:
        advance(1)
        row = conn.execute(f"SELECT {fields} FROM main.events WHERE id = ?", [event_id])
        previous = event_digest(previous, tuple(row.fetchone()))
        conn.execute("UPDATE main.events SET digest = ? WHERE id = ?", [previous, event_id])
    head = (*HEAD, f"{ids[-1]}:{previous}", by, at)
    conn.execute("INSERT OR REPLACE INTO main.row_digests VALUES (?, ?, ?, ?, ?)", head)


def seal_all(conn: sqlite3.Connection) -> None:
    """Digest every row and chain every event as the store is now (the migration that
    brings the audit in: what was there before it is taken as spanlab's)."""
    by, at = writer(), now()
    for table, cols in KEYS.items():
        keys = conn.execute(f"SELECT {', '.join(chr(34) + c + chr(34) for c in cols)} "
                            f"FROM main.{table}").fetchall()  # fmt: skip
        if keys:
            _rehash(conn, table, [list(k) for k in keys], by, at)
    ids = [int(r[0]) for r in conn.execute("SELECT id FROM main.events ORDER BY id")]
    if ids:
        chain(conn, ids, by, at)


def holding(conn: sqlite3.Connection, table: str) -> list[list[Any]]:
    """Keys of the rows of `table` whose digest matches the row as it is (a migration
    that adds a column reseals only those)."""
    stored = dict(conn.execute("SELECT key, digest FROM main.row_digests WHERE tbl = ?", [table]))
    cur = conn.execute(f"SELECT * FROM main.{table}")
    at = [[d[0] for d in cur.description].index(c) for c in KEYS[table]]
    out = []
    for row in cur:
        key = [row[i] for i in at]
        if stored.get(canonical(key)) == row_digest(table, tuple(row)):
            out.append(key)
    return out


def reseal(conn: sqlite3.Connection, table: str, keys: list[list[Any]]) -> None:
    """Digest the rows `keys` of `table` anew, as the migrating login."""
    if keys:
        _rehash(conn, table, keys, writer(), now())

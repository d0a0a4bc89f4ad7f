"""`spanlab labels restore` (§21): every write the store lacks brought back from the
writers' own journals, in the order they were committed, in one write.

A rollback leaves the store as it was at some moment; every journal entry after it is
replayed as the rows it left (upserted, never REPLACEd: a REPLACE would cascade), each
account's entries checked link by link against the head in its own file. The restore is a
write of the one running it, logged as a `store-restored` event, and journalled like any.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from labeler.core.errors import StoreError
from labeler.core.store import heads, journal
from labeler.core.store.connection import Connection
from labeler.core.store.digests import KEYS, now, writer

ORDER = ("meta", "bound_documents", "doc_texts", "queries", "spans", "versions",
         "assignments", "adjudications", "review_decisions", "retired_ids", "events")  # fmt: skip
"""Parents before children: the order rows of one write are put back in."""


@dataclass(frozen=True)
class Restored:
    """What a restore brought back."""

    writes: dict[str, tuple[int, int]] = field(default_factory=dict)
    """{account: (first seq, last seq)} replayed."""
    rows: dict[str, int] = field(default_factory=dict)
    """{table: rows put back or removed}."""

    @property
    def count(self) -> int:
        return sum(last - first + 1 for first, last in self.writes.values())


def _missing(conn: sqlite3.Connection, path: str) -> list[journal.Entry]:
    """Every account's journal entries past what the store holds, checked against its head."""
    folder = heads.folder_of(path)
    if folder is None:
        return []
    found, _ = heads.read_heads(folder)
    have = heads.store_heads(conn)
    out: list[journal.Entry] = []
    for account, head in sorted(found.items()):
        seq, chain = have.get(account, (0, ""))
        if head.seq <= seq:
            continue
        owner = heads._uid(account)
        entries = journal.read(folder, account, -1 if owner is None else owner)
        previous = chain
        for n in range(seq + 1, head.seq + 1):
            entry = entries.get(n)
            where = str(journal.path_of(folder, account))
            if entry is None:
                raise StoreError(f"{account}'s journal lacks write {n}: nothing restored",
                                 file=where)  # fmt: skip
            if entry.previous != previous:
                why = f"{account}'s write {n} does not follow the store's seq {seq} of theirs"
                raise StoreError(f"{why}: nothing restored", file=where)
            previous = entry.chain
            out.append(entry)
        if previous != head.chain:
            raise StoreError(f"{account}'s journal does not end at their head (seq "
                             f"{head.seq}): nothing restored", file=str(folder))  # fmt: skip
    return sorted(out, key=lambda e: (e.at, e.account, e.seq))


def _put(conn: sqlite3.Connection, table: str, row: dict[str, object]) -> None:
    cols = [c for c in journal.columns(conn, table) if c in row]
    keys = journal.key_columns(table)
    names = ", ".join(f'"{c}"' for c in cols)
    marks = ", ".join("?" * len(cols))
    values = [journal.plain_value(row[c]) for c in cols]
    target = ", ".join(f'"{c}"' for c in keys)
    if table == "events":
        tail = "DO NOTHING"
    else:
        sets = ", ".join(f'"{c}" = excluded."{c}"' for c in cols if c not in keys)
        tail = f"DO UPDATE SET {sets}" if sets else "DO NOTHING"
    conn.execute(f"INSERT INTO main.{table} ({names}) VALUES ({marks}) "
                 f"ON CONFLICT({target}) {tail}", values)  # fmt: skip


def _drop(conn: sqlite3.Connection, table: str, key: str) -> None:
    where = " AND ".join(f'"{c}" = ?' for c in journal.key_columns(table))
    conn.execute(f"DELETE FROM main.{table} WHERE {where}", json.loads(key))


def _replay(conn: sqlite3.Connection, entry: journal.Entry, counts: Counter[str]) -> None:
    rank = {t: i for i, t in enumerate(ORDER)}
    rows = sorted(entry.rows, key=lambda r: rank.get(r[0], len(ORDER)))
    for table, key, row in reversed(rows):
        if row is None:
            _drop(conn, table, key)
            counts[table] += 1
    for table, _key, row in rows:
        if row is not None:
            _put(conn, table, row)
            counts[table] += 1


class _DryRun(Exception):
    """Raised inside a dry run's transaction: what it did is rolled back."""


def restore(store: Connection, *, dry: bool = False) -> Restored:
    """Bring back every write the store lacks; refused (nothing changed) when a journal
    does not hold what its head says. `dry`: the same, rolled back at the end (what would
    come back, per account and table, to read before it does)."""
    counts: Counter[str] = Counter()
    writes: dict[str, tuple[int, int]] = {}
    with contextlib.suppress(_DryRun):
        _restore(store, counts, writes, dry)
    store.heads = heads.check(store.conn, store.path)
    known = set(KEYS) | {"events", journal.TEXTS[0]}
    return Restored(writes, {t: n for t, n in sorted(counts.items()) if t in known})


def forget_gone(store: Connection) -> list[str]:
    """A lead's way out when writers' records are gone (moved, emptied): the store stops
    claiming their writes (their head rows dropped, a `records-forgotten` event says whose),
    so it is taken as it is. The accounts forgotten, in order (none: nothing changed)."""
    with store.write(restoring=True):
        folder = heads.folder_of(store.path) or Path(".")
        found, _ = heads.read_heads(folder)
        have = heads.store_heads(store.conn)
        lost = [a for a in sorted(have) if a not in found
                and not os.path.lexists(journal.path_of(folder, a))]  # fmt: skip
        for account in lost:
            store.conn.execute("DELETE FROM main.row_digests WHERE tbl = ? AND key = ?",
                               [heads.TABLE, account])  # fmt: skip
        if lost:
            store.conn.execute("INSERT INTO main.events(at, annotator, kind, query_id, payload) "
                               "VALUES (?, ?, 'records-forgotten', NULL, ?)",
                               [now(), writer(), json.dumps({"accounts": lost})])  # fmt: skip
    store.heads = heads.check(store.conn, store.path)
    return lost


def _restore(
    store: Connection, counts: Counter[str], writes: dict[str, tuple[int, int]], dry: bool
) -> None:
    with store.write(restoring=True):
        entries = _missing(store.conn, store.path)
        for entry in entries:
            try:
                _replay(store.conn, entry, counts)
            except sqlite3.DatabaseError as exc:  # e.g. a row whose parent the store lacks
                where = journal.path_of(heads.folder_of(store.path) or Path("."), entry.account)
                raise StoreError(
                    f"{entry.account}'s write {entry.seq} cannot be put back on this store "
                    f"({exc}): nothing restored",
                    file=str(where),
                    hint="the store is older than the journals' first writes: restore it "
                    "from a backup first, then run `spanlab labels restore` again",
                ) from None
            first, _ = writes.get(entry.account, (entry.seq, entry.seq))
            writes[entry.account] = (first, entry.seq)
            value = f"{entry.seq}:{entry.chain}"
            row = [heads.TABLE, entry.account, value, entry.account, entry.at]
            store.conn.execute("INSERT OR REPLACE INTO main.row_digests VALUES (?,?,?,?,?)", row)
        if entries:
            payload = {a: list(s) for a, s in writes.items()}
            store.conn.execute("INSERT INTO main.events(at, annotator, kind, query_id, payload) "
                               "VALUES (?, ?, 'store-restored', NULL, ?)",
                               [now(), writer(), json.dumps(payload, sort_keys=True)])  # fmt: skip
        if dry:
            raise _DryRun

"""Opening the store, and the one transaction every write runs in (§3).

Writes take `BEGIN IMMEDIATE` so concurrent annotators queue on the busy timeout instead
of failing on a lock upgrade; WAL lets readers carry on meanwhile.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Self

import sqlite_utils

from labeler.core.errors import StoreError
from labeler.core.schema import migrate

BUSY_TIMEOUT_MS = 60_000
"""How long a writer waits for another writer before giving up."""


class Connection:
    """A migrated SQLite connection (or an in-memory one, for tests)."""

    def __init__(self, conn: sqlite3.Connection, *, path: str) -> None:
        self.path = path
        """Where the database lives (`:memory:` for an in-memory store)."""
        self.conn = conn
        self.db = sqlite_utils.Database(conn)
        self._hashed: dict[str, tuple[str, str]] = {}
        """doc id -> (text, hash) last written: an annotator adds many spans to one text."""

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True) -> Self:
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
    def memory(cls) -> Self:
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

"""Opening the store, and the one transaction every write runs in (§3).

Writes take `BEGIN IMMEDIATE` so concurrent annotators queue on the busy timeout instead
of failing on a lock upgrade; WAL lets readers carry on meanwhile.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import urllib.parse
from collections.abc import Collection, Iterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Self

from labeler.core import sqlite_utils_quietly
from labeler.core.errors import StoreError, UnsafeFile
from labeler.core.files import nofollow, sharing
from labeler.core.files.access import refusal_hint, why_not_writable
from labeler.core.progress import TaskFactory, no_task, stepped
from labeler.core.store import audit, digests, heads, journal
from labeler.core.store.foreign import describe, migrate_checked, refused
from labeler.core.store.schema import SCHEMA_VERSION, Foreign, foreign_objects

if TYPE_CHECKING:
    import sqlite_utils

BUSY_TIMEOUT_MS = 60_000
"""How long a writer waits for another writer before giving up."""


class Connection:
    """A migrated SQLite connection (or an in-memory one, for tests)."""

    def __init__(self, conn: sqlite3.Connection, *, path: str, read_only: bool = False) -> None:
        self.path = path
        """Where the database lives (`:memory:` for an in-memory store)."""
        self.read_only = read_only
        """Opened for reading only: every write refuses."""
        self.conn = conn
        self._hashed: dict[str, tuple[str, str]] = {}
        """doc id -> (text, hash) last written: an annotator adds many spans to one text."""
        self.foreign: tuple[Foreign, ...] = foreign_objects(conn)
        """Schema objects spanlab did not create (§20): while any is there, writes refuse."""
        self.heads: heads.State = heads.check(conn, path)
        """The store against every writer's head (§21): what it lacks refuses writes."""

    @cached_property
    def db(self) -> sqlite_utils.Database:
        """sqlite_utils over the connection, made at the first write: reading (the app's
        first screen, `corpus status`) never imports it (§12: app ready ≤ 1 s)."""
        database: sqlite_utils.Database = sqlite_utils_quietly().Database(self.conn)
        return database

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True, read_only: bool = False) -> Self:
        """Open (and migrate) the store at `path`; `create=False` refuses a missing file.

        `read_only` opens it for reading only (no migration, no WAL switch), which is how
        reading commands work on a read-only file or mount.
        """
        name = str(path)
        nofollow.require_database(Path(name))  # before SQLite opens anything (§20)
        if name != ":memory:" and not create and not Path(name).exists():
            raise StoreError("no label store here", file=name, hint="run `spanlab init` first")
        try:
            conn = _read_only(name) if read_only else _writable(name)
        except sqlite3.DatabaseError as exc:
            hint = _hint(name, str(exc)) if isinstance(exc, sqlite3.OperationalError) else None
            raise StoreError(f"cannot open the label store: {exc}", file=name, hint=hint) from None
        except OSError as exc:
            hint = refusal_hint(Path(name), exc.errno in sharing.FULL_ERRNOS, database=True)
            raise StoreError(f"cannot create the label store: {exc.strerror}", file=name,
                             hint=hint) from None  # fmt: skip
        if name != ":memory:":  # checks the three files again, now SQLite has opened them
            _heal(conn, Path(name))
        return cls(conn, path=name, read_only=read_only)

    @classmethod
    def open_for_reading(cls, path: Path | str) -> Self:
        """The store as reading commands need it: writable if it may be, else read-only."""
        name = str(path)
        if Path(name).exists() and not _may_write(Path(name)):
            return cls.open(name, create=False, read_only=True)
        try:
            return cls.open(name, create=False)
        except StoreError as exc:
            if "readonly" not in exc.message and "read-only" not in exc.message:
                raise
            return cls.open(name, create=False, read_only=True)

    @classmethod
    def memory(cls) -> Self:
        return cls.open(":memory:")

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def write(
        self, *, restoring: bool = False, task: TaskFactory = no_task
    ) -> Iterator[sqlite_utils.Database]:
        """One write transaction, committed on exit (and rolled back on any error); the rows
        it touched get their digests (and its events their links) before the commit, and
        the writer's journal and head their record (§21; `restoring`: the one write a store
        missing others' writes may take, `labels restore`). `task`: a bar over that sealing
        (12 s after an import of 200,000 questions, issue 45)."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _refusal(self.path, exc) from None
        # Checked inside the transaction: nothing can be planted between check and write.
        self.foreign = foreign_objects(self.conn)
        if self.foreign:
            self.conn.execute("ROLLBACK")
            raise refused(self.path, self.foreign)
        self._check_heads(restoring)
        try:
            yield self.db
            self._seal(task)
        except sqlite3.OperationalError as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if "readonly" in str(exc) or sharing.disk_full(str(exc)):
                raise _refusal(self.path, exc) from None
            raise
        except BaseException:
            # SQLite may already have rolled back (or COMMIT itself failed): never leave a
            # transaction open, or every later edit of this session would fail.
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def _seal(self, task: TaskFactory) -> None:
        """Read back, hash and journal the rows the write touched, then commit: counted on
        `task` by rows, each step weighed about as long as it takes (at 200,000 rows:
        4 s to read them back, 2 s to hash, 3 s to journal, 2 s to commit)."""
        touched = digests.touched(self.conn)
        with stepped(task, "sealing the write", touched * 4) as advance:
            if self.path == ":memory:":  # no journal: nothing read back
                rows: list[journal.Row] = []
                advance(touched)
            else:
                rows = journal.collect(self.conn, advance)
            digests.refresh(self.conn, advance)
            with heads.recorded(self.conn, self.path, rows):
                advance(touched)
                self.conn.execute("COMMIT")
            advance(touched)

    def _check_heads(self, restoring: bool) -> None:
        """Inside the transaction: a store that lacks a writer's writes takes none (§21)."""
        self.heads = heads.check(self.conn, self.path)
        refusal = None if restoring else self.heads.refusal(self.path)
        if refusal is not None:
            self.conn.execute("ROLLBACK")
            raise refusal

    def cannot_write(self) -> str | None:
        """Why edits would be refused (a file of the store we may not write, or opened
        read-only), or None: what the app says at start (§15)."""
        if self.path == ":memory:":
            return None
        if self.foreign:
            return refused(self.path, self.foreign).message
        if self.heads.lacking:
            return str(self.heads.refusal(self.path))
        why = why_not_writable(Path(self.path), database=True)
        return why or ("the label store is open read-only" if self.read_only else None)

    def audit(self, leads: Collection[str] = ()) -> audit.Report:
        """Changes made to the store around spanlab, named (§20: `spanlab labels audit`);
        `leads`: the team's, whose (or root's) the store file should be."""
        path = self.path if self.path != ":memory:" else ""
        found = audit.report(self.conn, path, describe(self.foreign), leads)
        return dataclasses.replace(found, heads=self.heads.lacking)

    def audit_quick(self) -> int:
        """How many rows and events are out of line by count alone (`corpus status`)."""
        return audit.quick(self.conn) + len(self.foreign)

    @contextlib.contextmanager
    def reader(self) -> Iterator[sqlite3.Connection]:
        """A read-only connection of its own to the same file, closed on exit: how a thread
        reads while this one serves the app (SQLite lets go of the GIL as it steps). An
        in-memory store has no file to share: it hands out its own connection."""
        if self.path == ":memory:":
            yield self.conn
            return
        conn = _read_only(self.path)
        try:
            yield conn
        finally:
            conn.close()

    def data_version(self) -> int:
        """Changes when another connection commits: how the app notices others' edits."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])


def _writable(name: str) -> sqlite3.Connection:
    sharing.create_empty(Path(name))
    conn = sqlite3.connect(name, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if name != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA trusted_schema = OFF")
    migrate_checked(conn, name)
    digests.watch(conn)
    journal.watch_texts(conn)
    return conn


def _read_only(name: str) -> sqlite3.Connection:
    """Read-only; on a read-only folder the WAL index cannot be made, so the file is then
    opened as immutable (nothing can change it there anyway)."""
    uri = "file:" + urllib.parse.quote(str(Path(name).resolve()))
    try:
        conn = _ro_connect(uri + "?mode=ro")
    except sqlite3.OperationalError:
        conn = _ro_connect(uri + "?mode=ro&immutable=1")
    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if found != SCHEMA_VERSION:
        raise sqlite3.DatabaseError(
            f"it has schema version {found}, this spanlab reads {SCHEMA_VERSION}; open it once "
            "where it may be written, to migrate it"
        )
    return conn


def _ro_connect(uri: str) -> sqlite3.Connection:
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA query_only = ON")
    conn.execute("PRAGMA trusted_schema = OFF")
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # fails now, not later
    return conn


def _may_write(path: Path) -> bool:
    """The file, its folder and its WAL and index (where they exist) may be written by us."""
    files = (path, Path(f"{path}-wal"), Path(f"{path}-shm"))
    mine = all(os.access(f, os.W_OK) for f in files if f.exists())
    return mine and os.access(path.parent, os.W_OK)


def _hint(path: str, message: str) -> str | None:
    """What stops a write, named (file, owner, mode, fix) — or the full disk."""
    if "readonly" not in message and not sharing.disk_full(message):
        return None
    fix = refusal_hint(Path(path), sharing.disk_full(message), database=True)
    return f"{fix}; reading commands (corpus status, labels stats, show) still work"


def _refusal(path: str, exc: sqlite3.OperationalError) -> StoreError:
    return StoreError(
        f"the label store cannot be written: {exc}", file=path, hint=_hint(path, str(exc))
    )


def _heal(conn: sqlite3.Connection, path: Path) -> None:
    """The store's files checked after SQLite opened them (and ours given the group's bits
    back); a link or special file found now closes the connection before any read."""
    try:
        sharing.heal(path, sharing.share_of(path.parent))
    except UnsafeFile:
        conn.close()
        raise

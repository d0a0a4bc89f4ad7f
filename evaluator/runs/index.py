"""Runs indexed in SQLite (`.spanlab/runs.db`) so the triage screen lists them at once (§9).

The run folders stay the source of truth: the index holds one row per folder, a folder
it has never seen is indexed when the runs are listed, and a row whose folder is gone is
dropped. So old runs appear, and deleting a run folder is all it takes to forget a run.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.runs.model import FILE_NAME, RunFile, read_run
from labeler.core.display import shown
from labeler.core.errors import SpanlabError, StoreError, UnsafeFile
from labeler.core.files import foreign_schema, nofollow, sharing
from labeler.core.files.access import refusal_hint
from labeler.core.files.foreign_schema import ForeignSchema

INDEX_NAME = "runs.db"
"""The index file, beside the runs folder (`.spanlab/runs.db`)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    started TEXT NOT NULL,
    passed INTEGER NOT NULL,
    baseline TEXT NOT NULL,
    candidates TEXT NOT NULL,
    corpus_hash TEXT NOT NULL,
    label_set_hash TEXT NOT NULL,
    folder TEXT NOT NULL
)
"""
_VERSION = 1
_BUSY_SECONDS = 5.0
_EXPECTED = foreign_schema.made_by((_SCHEMA,))
"""What spanlab makes in runs.db: anything else is another's (§21)."""


@dataclass(frozen=True)
class RunEntry:
    """One run as the index knows it: enough to list and pick it, no metrics."""

    id: str
    """Run id, `YYYYmmdd-HHMMSS-microseconds`."""
    started: str
    """ISO time the run started (UTC)."""
    passed: bool
    """Whether every gate held."""
    baseline: str
    """The baseline candidate's name."""
    candidates: tuple[str, ...]
    """Every candidate's name, baseline first, in run order."""
    corpus_hash: str
    """The corpus the run measured."""
    label_set_hash: str
    """The labels the run measured."""
    folder: Path
    """The run folder (holding run.json)."""


def index_path(runs_dir: Path) -> Path:
    """`.spanlab/runs.db` for `.spanlab/runs`."""
    return runs_dir.parent / INDEX_NAME


def entry_of(run: RunFile, folder: Path) -> RunEntry:
    """The index entry of a run, written in `folder`."""
    return RunEntry(
        id=run.id,
        started=run.started,
        passed=run.passed,
        baseline=run.baseline.name,
        candidates=tuple(run.names),
        corpus_hash=run.manifest.corpus_hash,
        label_set_hash=run.manifest.label_set_hash,
        folder=folder,
    )


_WHAT = "the runs index"
_FIX = "delete the file (spanlab rebuilds it from the run folders) or remove what was planted"


@contextmanager
def _open(runs_dir: Path) -> Iterator[sqlite3.Connection]:
    path = index_path(runs_dir)
    sharing.create_empty(path)
    with closing(sqlite3.connect(path, timeout=_BUSY_SECONDS, isolation_level=None)) as conn:
        foreign_schema.harden(conn)
        nofollow.require_database(path)  # again, now SQLite has opened its files (§20)
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > _VERSION:
            raise StoreError(
                f"runs index has version {version}, newer than this spanlab knows ({_VERSION})",
                file=str(path),
                hint="upgrade spanlab, or delete the file: it is rebuilt from the run folders",
            )
        foreign_schema.check(conn, _WHAT, str(path), _EXPECTED, _FIX)  # readers too: folders
        if version < _VERSION:
            with _writing(conn, path):
                conn.execute(_SCHEMA)
                conn.execute(f"PRAGMA user_version = {_VERSION}")
        yield conn


@contextmanager
def _writing(conn: sqlite3.Connection, path: Path) -> Iterator[None]:
    """One write transaction, refused (before anything is written) while the index holds a
    trigger, view, table or index spanlab did not make (§21): checked inside it, so
    nothing can be planted between the check and the write."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        foreign_schema.check(conn, _WHAT, str(path), _EXPECTED, _FIX)
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def require_clean(runs_dir: Path) -> None:
    """Refuse (exit 2, naming them and the fix) while the index holds objects spanlab did
    not make: `eval` asks before it works, so nothing is written and nothing fires."""
    foreign_schema.check_file(index_path(runs_dir), _WHAT, _EXPECTED, _FIX)


def _stored_folder(runs_dir: Path, folder: Path) -> str:
    """Relative to the runs folder when inside it, so a moved project keeps its index."""
    try:
        return folder.resolve().relative_to(runs_dir.resolve()).as_posix()
    except ValueError:
        return str(folder.resolve())


def _insert(conn: sqlite3.Connection, runs_dir: Path, entry: RunEntry) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            entry.id, entry.started, int(entry.passed), entry.baseline,
            json.dumps(list(entry.candidates)), entry.corpus_hash, entry.label_set_hash,
            _stored_folder(runs_dir, entry.folder),
        ),
    )  # fmt: skip


def record(runs_dir: Path, run: RunFile, folder: Path) -> RunEntry:
    """Add (or replace) the run `run`, written in `folder`."""
    entry = entry_of(run, folder)
    try:
        with _open(runs_dir) as conn, _writing(conn, index_path(runs_dir)):
            _insert(conn, runs_dir, entry)
    except (sqlite3.OperationalError, OSError, UnsafeFile, ForeignSchema) as exc:
        # The run is written; listings read the folders where the index cannot be written.
        path = index_path(runs_dir)
        why = exc.hint if isinstance(exc, SpanlabError) else refusal_hint(
            path, sharing.disk_full(str(exc)), database=True)  # fmt: skip
        said = f"warning: {path}: the runs index was not updated ({_words(exc)}): {why}"
        print(shown(said), file=sys.stderr)  # a path, a server's words: terminal-safe
    return entry


def _words(exc: Exception) -> str:
    return exc.message if isinstance(exc, SpanlabError) else str(exc)


def _row_entry(runs_dir: Path, row: tuple[Any, ...]) -> RunEntry:
    rid, started, passed, baseline, names, corpus_hash, label_hash, folder = row
    return RunEntry(rid, started, bool(passed), baseline, tuple(json.loads(names)),
                    corpus_hash, label_hash, runs_dir / folder)  # fmt: skip


def _read_run(folder: Path) -> RunEntry | None:
    """A folder's entry, or None while its run.json is missing or half-written."""
    try:
        return entry_of(read_run(folder), folder)
    except SpanlabError:
        return None


def list_runs(runs_dir: Path) -> list[RunEntry]:
    """Every run, newest first; indexes folders not yet in the index, drops vanished ones.

    Where the index cannot be written (a read-only CI artifact), the folders are read
    directly: slower for many runs, but the list is the same.
    """
    if not runs_dir.is_dir():
        return []
    try:
        return _list_indexed(runs_dir)
    except (UnsafeFile, ForeignSchema) as exc:  # a link, FIFO or trigger there: the folders
        print(shown(f"warning: the runs index is not used: {exc}"), file=sys.stderr)
        return _from_folders(runs_dir)
    except (sqlite3.DatabaseError, OSError):
        return _from_folders(runs_dir)


def _from_folders(runs_dir: Path) -> list[RunEntry]:
    found = (_read_run(f) for f in _run_folders(runs_dir))
    return _newest_first([e for e in found if e is not None])


def _run_folders(runs_dir: Path) -> list[Path]:
    """Folders that may hold a run: not the hidden ones a run is written into first, nor a
    link a member put there (§20: it would lead the next reader elsewhere)."""
    return [f for f in sorted(runs_dir.iterdir()) if not f.name.startswith(".") and not _gone(f)]


def _gone(folder: Path) -> bool:
    """Not a real folder (any more): missing, or a link in place of one."""
    return folder.is_symlink() or not folder.is_dir()


def _newest_first(entries: list[RunEntry]) -> list[RunEntry]:
    return sorted(entries, key=lambda e: (e.started, e.id), reverse=True)


def _list_indexed(runs_dir: Path) -> list[RunEntry]:
    with _open(runs_dir) as conn:
        rows = conn.execute("SELECT * FROM runs").fetchall()
        known = {e.folder.resolve(): e for e in (_row_entry(runs_dir, r) for r in rows)}
        shut = {e.id for e in known.values() if _shut(e.folder)}  # another's alone (§21)
        gone = [
            e.id
            for f, e in known.items()
            if e.id not in shut and (_gone(e.folder) or not (f / FILE_NAME).exists())
        ]
        fresh = [
            entry
            for folder in _run_folders(runs_dir)
            if folder.resolve() not in known
            for entry in [_read_run(folder)]
            if entry is not None
        ]
        if gone or fresh:
            with _writing(conn, index_path(runs_dir)):
                conn.executemany("DELETE FROM runs WHERE id = ?", [(i,) for i in gone])
                for entry in fresh:
                    _insert(conn, runs_dir, entry)
    return _newest_first([e for e in known.values() if e.id not in gone and e.id not in shut]
                         + fresh)  # fmt: skip


def _shut(folder: Path) -> bool:
    """A run folder that is there but not ours to read: a lead's run that holds versions
    blind keeps from the group (§21). It stays in the index, out of this reader's list."""
    return folder.is_dir() and not folder.is_symlink() and not os.access(folder, os.R_OK | os.X_OK)


def shut_runs(runs_dir: Path) -> int:
    """How many run folders here this reader may not open (another's alone)."""
    if not runs_dir.is_dir():
        return 0
    return sum(1 for f in _run_folders(runs_dir) if _shut(f))


def find_run(runs_dir: Path, run: str | None) -> RunEntry:
    """The run called `run` (an id, a unique id prefix, or `latest`/None for the newest)."""
    runs = list_runs(runs_dir)
    if not runs:
        if shut := shut_runs(runs_dir):
            raise StoreError(f"no run you may read: {shut} run(s) here are their writer's "
                             "alone while the versions they hold wait for a decision",
                             file=str(runs_dir), hint="ask a lead to decide them and run "
                             "eval again")  # fmt: skip
        raise StoreError("no runs yet", file=str(runs_dir), hint="run `spanlab eval`")
    if run is None or run == "latest":
        return runs[0]
    found = [e for e in runs if e.id == run] or [e for e in runs if e.id.startswith(run)]
    if len(found) != 1:
        what = "no run" if not found else f"{len(found)} runs match"
        raise StoreError(f"{what} {run!r}", file=str(runs_dir), key="run",
                         hint="newest: " + ", ".join(e.id for e in runs[:3]))  # fmt: skip
    return found[0]

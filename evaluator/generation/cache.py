"""Answers kept by what decides them (§23): model, decoding, template, context, question.

A rerun, or a second candidate whose context at budget is the same text, asks nothing
twice. The file is opened by `open_database` alone, the embedding cache's checked path
(no link followed, shared by the project's mode), so a later, general check of foreign
schemas replaces one function here.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from evaluator.generation.client import Reply
from labeler.core.errors import StoreError
from labeler.core.files import nofollow, sharing

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    model TEXT NOT NULL,
    decoding TEXT NOT NULL,
    template_sha256 TEXT NOT NULL,
    context_sha256 TEXT NOT NULL,
    question_sha256 TEXT NOT NULL,
    answer TEXT NOT NULL,
    refused INTEGER NOT NULL,
    finish TEXT NOT NULL,
    PRIMARY KEY (model, decoding, template_sha256, context_sha256, question_sha256)
)
"""


@dataclass(frozen=True)
class AnswerKey:
    """Everything an answer depends on; equal keys get the cached answer."""

    model: str
    decoding: str
    """`Generation.decoding()`: temperature, seed, max_tokens."""
    template_sha256: str
    context_sha256: str
    """sha256 of the numbered sources as sent."""
    question: str

    def row(self) -> tuple[str, str, str, str, str]:
        digest = hashlib.sha256(self.question.encode("utf-8")).hexdigest()
        return (self.model, self.decoding, self.template_sha256, self.context_sha256, digest)


def open_database(path: str, *, private: bool = False) -> sqlite3.Connection:
    """The answers file, opened the checked way (nofollow before and after, the project's
    sharing mode, or 0640 when `private`: a team member's own, which no other member may
    write, §21) with the schema in place. The one place this file is opened."""
    if path != ":memory:":
        nofollow.require_database(Path(path))
        (sharing.create_private if private else sharing.create_empty)(Path(path))
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 5000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(_SCHEMA)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    if path != ":memory:":
        nofollow.require_database(Path(path))
        sharing.heal(Path(path), None if private else sharing.share_of(Path(path).parent))
    return conn


class AnswerCache:
    """SQLite file (or `:memory:`) of answers; safe to share between threads."""

    def __init__(self, path: str | Path = ":memory:", *, private: bool = False) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._conn = open_database(self.path, private=private)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"answer cache: {exc}", file=self.path) from None

    def get(self, key: AnswerKey) -> Reply | None:
        with self._lock:
            found = self._conn.execute(
                "SELECT answer, refused, finish FROM answers WHERE model = ? AND decoding = ?"
                " AND template_sha256 = ? AND context_sha256 = ? AND question_sha256 = ?",
                key.row(),
            ).fetchone()
        if found is None or not isinstance(found[0], str):
            return None
        return Reply(found[0], bool(found[1]), str(found[2]))

    def put(self, key: AnswerKey, reply: Reply) -> None:
        """Kept at once (one committed row): an interrupted run keeps every answer it had."""
        with self._lock:
            try:
                self._conn.execute(
                    "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (*key.row(), reply.text, int(reply.refused), reply.finish),
                )
            except sqlite3.Error as exc:
                raise StoreError(f"answer cache: {exc}", file=self.path) from None

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        self._conn.close()

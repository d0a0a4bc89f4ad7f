"""A look into the embedding cache that writes nothing: which texts it holds for a model and
the throughput it last measured (for `spanlab plan`, §17).

`EmbeddingCache` creates its file, its WAL and its tables; a plan must leave the cache folder
as it found it, so this opens an existing file read-only — immutable when no WAL is beside
it, so SQLite creates no -shm or -wal either — and reports a missing one as empty.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

from evaluator.embedding.base import text_sha256
from labeler.core.files import foreign_schema, nofollow

_BATCH = 500
"""Keys per SELECT, well under SQLite's bound-parameter limit."""


class CacheProbe:
    """The cache at `path` as it is, read-only; every answer empty when there is none."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        """The cache file (None: an in-memory cache, which a plan cannot see)."""
        self._conn: sqlite3.Connection | None = None
        if path is not None and path.is_file():
            nofollow.require_database(path)  # a link or FIFO there is refused (§20)
            wal = path.with_name(path.name + "-wal").exists()
            uri = "file:" + urllib.parse.quote(str(path.resolve()))
            mode = "?mode=ro" if wal else "?mode=ro&immutable=1"
            self._conn = sqlite3.connect(uri + mode, uri=True, isolation_level=None)
            foreign_schema.harden(self._conn)  # a view there calls nothing unsafe (§21)

    @property
    def found(self) -> bool:
        """Whether there is a cache file to look into."""
        return self._conn is not None

    def cached(self, fingerprint: str, texts: Sequence[str]) -> int:
        """How many distinct `texts` the cache holds a vector of for this model."""
        if self._conn is None:
            return 0
        keys = sorted({text_sha256(t) for t in texts})
        found = 0
        for lo in range(0, len(keys), _BATCH):
            part = keys[lo : lo + _BATCH]
            sql = ("SELECT count(*) FROM embeddings WHERE fingerprint = ? AND text_sha256 IN "
                   f"({','.join('?' * len(part))})")  # fmt: skip
            found += int(self._one(sql, [fingerprint, *part]) or 0)
        return found

    def texts_per_second(self, fingerprint: str) -> float | None:
        """The throughput the cache last measured for this model; None when never."""
        if self._conn is None:
            return None
        sql = "SELECT texts / seconds FROM throughput WHERE fingerprint = ? AND seconds > 0"
        found = self._one(sql, [fingerprint])
        return None if found is None else float(found)

    def _one(self, sql: str, args: list[str]) -> float | None:
        assert self._conn is not None
        try:
            row = self._conn.execute(sql, args).fetchone()
        except sqlite3.DatabaseError:  # an older cache without the table, or not a cache
            return None
        return None if row is None or row[0] is None else float(row[0])

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()

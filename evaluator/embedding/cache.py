"""A content-addressed embedding cache: a text is embedded once per model, ever (§6).

Rows are keyed by the model fingerprint and the sha256 of the exact text, so candidates
that cut the same chunk share its vector, and a model change can never serve a stale one.
Misses are embedded and committed a batch at a time, each batch checked first, so an
interrupted run keeps all but its last batch and the next run carries on from there.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
import urllib.parse
from collections.abc import Container, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluator.embedding import sealed
from evaluator.embedding.base import Embedder, Progress, VectorCache, Vectors, text_sha256
from labeler.core.display import shown
from labeler.core.errors import ConfigError, StoreError
from labeler.core.files import foreign_schema, nofollow, sharing
from labeler.core.files.access import refusal_hint, refused_write, why_not_writable

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    fingerprint TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (fingerprint, text_sha256)
)
"""
THROUGHPUT = """
CREATE TABLE IF NOT EXISTS throughput (
    fingerprint TEXT PRIMARY KEY,
    texts INTEGER NOT NULL,
    seconds REAL NOT NULL
)
"""
"""Per model, texts embedded and the seconds they took in the last session that embedded any:
what a plan divides by (§17)."""
EXPECTED = foreign_schema.made_by((_SCHEMA, THROUGHPUT, sealed.DIGESTS))
"""What spanlab makes in an embedding cache: anything else is another's (§21)."""
WHAT = "the embedding cache"
FIX = "delete the cache file (spanlab embeds again) or remove what was planted"
_LOOKUP_BATCH = 500
"""Keys per SELECT, well under SQLite's bound-parameter limit."""
COMMIT_BATCH = 256
"""Texts embedded, checked and committed together: what an interrupted run can lose."""


class EmbeddingCache:
    """SQLite file (or `:memory:`) of float32 vectors; safe to share between threads."""

    def __init__(self, path: str | Path, *, private: bool = False, reader: bool = False) -> None:
        self.path = str(path)
        """Where the cache lives; `:memory:` for a throwaway one."""
        self.private = private and self.path != ":memory:"
        """One account's cache (§21): made 0640, its owner alone writes it, and with a
        rollback journal, so another account reads it without making a file beside it."""
        nofollow.require_database(Path(self.path))  # a link or FIFO there is refused (§20)
        mine = self.path == ":memory:" or not Path(path).exists()
        self.refused = "another account's cache" if reader else (
            None if mine else why_not_writable(Path(path), database=True))  # fmt: skip
        """Why we may not write the cache (someone else's file): then it is only read."""
        self._lock = threading.Lock()
        self.repaired = 0
        """Damaged vectors found and dropped (to be embedded again) by this connection."""
        self.sealed = False
        """Whether the file keeps a digest per vector (an older spanlab's may not)."""
        try:
            self._conn = self._read_only() if self.refused else self._writable()
            self.sealed = sealed.present(self._conn)
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        except OSError as exc:
            message, hint = refused_write(Path(self.path), exc)
            elsewhere = "or point SPANLAB_CACHE (or embedding_cache in spanlab.toml) elsewhere"
            raise ConfigError(
                f"the embedding cache cannot be written: {message}", file=self.path,
                key="embedding_cache", hint=f"{hint}; {elsewhere}" if hint else elsewhere,
            ) from None  # fmt: skip
        if self.refused and not reader:
            said = f"warning: embedding cache read-only, new vectors are not kept: {self.refused}"
            print(shown(said), file=sys.stderr)

    def _writable(self) -> sqlite3.Connection:
        if self.private:
            sharing.create_private(Path(self.path))
        elif self.path != ":memory:":
            sharing.create_empty(Path(self.path))
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        foreign_schema.harden(conn)
        # WAL lets runs read while another run writes; the timeout waits out a writer.
        conn.execute("PRAGMA busy_timeout = 5000")
        try:  # before the first write: a planted trigger would run inside it (§21)
            foreign_schema.check(conn, WHAT, self.path, EXPECTED, FIX)
        except StoreError:
            conn.close()
            raise
        conn.execute(f"PRAGMA journal_mode = {'DELETE' if self.private else 'WAL'}")
        conn.execute(_SCHEMA)
        conn.execute(THROUGHPUT)
        if not sealed.present(conn):
            sealed.seal_all(conn)  # what an older spanlab stored is taken as spanlab's
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if self.path != ":memory:":
            share = None if self.private else sharing.share_of(Path(self.path).parent)
            sharing.heal(Path(self.path), share)
        return conn

    def _read_only(self) -> sqlite3.Connection:
        """Someone else's cache, read as it is; a folder we may not write holds no WAL
        index of ours, so a shared file is then read as immutable (an account's own, kept
        with a rollback journal, needs no file beside it to be read)."""
        uri = "file:" + urllib.parse.quote(str(Path(self.path).resolve()))
        plain = self.private or os.access(Path(self.path).parent, os.W_OK)
        mode = "?mode=ro" if plain else "?mode=ro&immutable=1"
        conn = sqlite3.connect(uri + mode, uri=True, check_same_thread=False, isolation_level=None)
        foreign_schema.harden(conn)
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("SELECT count(*) FROM embeddings").fetchone()
        found = foreign_schema.foreign_objects(conn, EXPECTED)
        if found:  # reading fires nothing: read on, and say so
            print(foreign_schema.warning(WHAT, self.path, found), file=sys.stderr)
        share = None if self.private else sharing.share_of(Path(self.path).parent)
        sharing.heal(Path(self.path), share)
        return conn

    def _error(self, exc: sqlite3.Error) -> StoreError:
        full = sharing.disk_full(str(exc))
        hint = refusal_hint(Path(self.path), full, database=True)
        return StoreError(f"embedding cache: {exc}", file=self.path, hint=hint)

    def get_many(
        self, fingerprint: str, texts: Sequence[str], dim: int | None = None
    ) -> dict[int, Vectors]:
        """Index in `texts` → cached vector, for the texts this model has embedded before.

        A stored vector that is not finite or not `dim` wide (a damaged or foreign row) is
        dropped from the cache and left out, so the caller embeds that text again.
        """
        positions: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            positions.setdefault(text_sha256(text), []).append(i)
        keys = list(positions)
        found: dict[int, Vectors] = {}
        bad: list[str] = []
        changed = 0
        for start in range(0, len(keys), _LOOKUP_BATCH):
            for key, vector, held in self._select(fingerprint, keys[start : start + _LOOKUP_BATCH]):
                if vector is None or not usable(vector, dim) or not held:
                    bad.append(key)
                    changed += not held
                    continue
                for i in positions[key]:
                    found[i] = vector
        if changed:
            said = (f"warning: {self.path}: {changed} cached vector(s) were changed outside "
                    "spanlab (their digests do not match): not used, embedded again")  # fmt: skip
            print(shown(said), file=sys.stderr)
        if bad:
            self.drop(fingerprint, bad)
        return found

    def drop(self, fingerprint: str, keys: Sequence[str]) -> None:
        """Remove these texts' vectors (by text sha256) for one model."""
        pairs = [(fingerprint, key) for key in keys]
        self._write(("DELETE FROM embeddings WHERE fingerprint = ? AND text_sha256 = ?", pairs),
                    ("DELETE FROM vector_digests WHERE fingerprint = ? AND text_sha256 = ?",
                     pairs))  # fmt: skip
        self.repaired += len(keys)

    def put_many(self, fingerprint: str, texts: Sequence[str], vectors: Vectors) -> None:
        """Store one vector per text; a text already cached keeps its first vector."""
        if len(texts) != len(vectors):
            raise ValueError(f"{len(texts)} texts but {len(vectors)} vectors")
        rows = [
            (fingerprint, text_sha256(text), int(vector.shape[0]), _to_blob(vector))
            for text, vector in zip(texts, vectors, strict=True)
        ]
        digests = [(f, k, sealed.digest(f, k, d, b)) for f, k, d, b in rows]
        self._write(("INSERT OR IGNORE INTO embeddings VALUES (?, ?, ?, ?)", rows),
                    ("INSERT OR IGNORE INTO vector_digests VALUES (?, ?, ?)", digests))  # fmt: skip

    def measured(self, fingerprint: str, texts: int, seconds: float) -> None:
        """Keep the throughput this session measured for one model (replacing the last)."""
        self._write(("INSERT OR REPLACE INTO throughput VALUES (?, ?, ?)",
                     [(fingerprint, texts, seconds)]))  # fmt: skip

    def _write(self, *statements: tuple[str, Sequence[tuple[object, ...]]]) -> None:
        """One transaction: every row or none; nothing on someone else's read-only cache."""
        if self.refused:
            return
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:  # checked inside the transaction: nothing planted between (§21)
                    foreign_schema.check(self._conn, WHAT, self.path, EXPECTED, FIX)
                    for sql, rows in statements:
                        self._conn.executemany(sql, rows)
                except BaseException:
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                    raise
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise self._error(exc) from None

    def count(self, fingerprint: str | None = None) -> int:
        """Vectors stored, for one model or for all."""
        sql, args = "SELECT count(*) FROM embeddings", []
        if fingerprint is not None:
            sql, args = sql + " WHERE fingerprint = ?", [fingerprint]
        with self._lock:
            (n,) = self._conn.execute(sql, args).fetchone()
        return int(n)

    def by_model(self) -> dict[str, int]:
        """Model fingerprint -> vectors stored."""
        sql = "SELECT fingerprint, count(*) FROM embeddings GROUP BY fingerprint"
        with self._lock:
            return {str(f): int(n) for f, n in self._conn.execute(sql).fetchall()}

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _select(self, fingerprint: str, keys: list[str]) -> list[tuple[str, Vectors | None, bool]]:
        """(text sha256, vector or None, whether its digest holds) of each row found; a file
        without digests (an older spanlab's, read only) holds every row."""
        marks = ",".join("?" * len(keys))
        digest = "d.digest" if self.sealed else "NULL"
        join = " LEFT JOIN vector_digests d USING (fingerprint, text_sha256)" if self.sealed else ""
        sql = (
            f"SELECT e.text_sha256, e.dim, e.vector, {digest} FROM embeddings e{join}"
            f" WHERE e.fingerprint = ? AND e.text_sha256 IN ({marks})"
        )
        with self._lock:
            rows = self._conn.execute(sql, [fingerprint, *keys]).fetchall()
        return [
            (key, _from_blob(blob, dim),
             not self.sealed or sealed.holds(stored, fingerprint, key, dim, blob))
            for key, dim, blob, stored in rows
        ]  # fmt: skip


def _to_blob(vector: Vectors) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def _from_blob(blob: object, dim: object) -> Vectors | None:
    """The stored vector, or None when the row cannot be one (wrong length, not bytes)."""
    if not isinstance(blob, bytes) or len(blob) % 4 or not isinstance(dim, int):
        return None
    vector = np.frombuffer(blob, dtype="<f4")
    return vector.astype(np.float32) if vector.shape == (dim,) else None


def usable(vector: Vectors, dim: int | None) -> bool:
    """A vector fit to use: `dim` wide (when known) and every value finite."""
    return (dim is None or vector.shape == (dim,)) and bool(np.isfinite(vector).all())


def checked(vectors: Vectors, n: int, dim: int, model: str) -> Vectors:
    """The model's answer for `n` texts, refused unless it is n finite rows of width `dim`:
    nothing unchecked reaches the cache."""
    shape = getattr(vectors, "shape", None)
    if shape != (n, dim):
        raise ConfigError(
            f"embedding model {model} returned shape {shape} for {n} texts, expected ({n}, {dim})",
            key="embedding",
        )
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if bad.size:
        raise ConfigError(
            f"embedding model {model} returned {bad.size} vector(s) with NaN or infinite "
            f"values (first: text {int(bad[0]) + 1} of the batch)",
            key="embedding",
        )
    return vectors


@dataclass(frozen=True)
class CacheStats:
    requested: int
    """Texts asked for, duplicates included."""
    hits: int
    """Distinct texts (per call) served from the cache."""
    misses: int
    """Distinct texts (per call) the model had to embed."""


class CachedEmbedder:
    """An Embedder that asks the cache first and embeds each missing text once."""

    def __init__(self, embedder: Embedder, cache: VectorCache, batch: int = COMMIT_BATCH) -> None:
        self.embedder = embedder
        """The model that fills the misses."""
        self.cache = cache
        """Where vectors are looked up and stored."""
        self.batch = batch
        """Distinct texts embedded and committed at a time."""
        self._requested = 0
        self._hits = 0
        self._misses = 0
        self._seconds = 0.0
        """Seconds the model spent on this session's misses."""
        self._lock = threading.Lock()

    @property
    def fingerprint(self) -> str:
        return self.embedder.fingerprint

    @property
    def dim(self) -> int:
        return self.embedder.dim

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        found = self.cache.get_many(self.fingerprint, texts, self.dim)
        for i, vector in found.items():
            out[i] = vector
        missing = _first_positions(texts, skip=found.keys())
        self._count(len(texts), len({texts[i] for i in found}), 0)
        if progress is not None and len(texts) > len(missing):
            progress(len(texts) - len(missing))
        by_text: dict[str, Vectors] = {}
        # Shortest first, so each batch pads little; each batch is committed on its own.
        fresh = sorted(missing, key=len)
        for lo in range(0, len(fresh), self.batch):
            by_text.update(self._embed_batch(fresh[lo : lo + self.batch], progress))
        for i, text in enumerate(texts):
            if i not in found:
                out[i] = by_text[text]
        return out

    def _embed_batch(self, batch: list[str], progress: Progress | None) -> dict[str, Vectors]:
        """Embed, check and commit one batch: once this returns, it survives an interrupt."""
        started = time.perf_counter()
        vectors = checked(self.embedder.embed(batch, progress), len(batch), self.dim,
                          self.model_id)  # fmt: skip
        self._seconds += time.perf_counter() - started
        self.cache.put_many(self.fingerprint, batch, vectors)
        self._count(0, 0, len(batch))
        self.cache.measured(self.fingerprint, self.stats().misses, self._seconds)
        return dict(zip(batch, vectors, strict=True))

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self._requested, self._hits, self._misses)

    def _count(self, requested: int, hits: int, misses: int) -> None:
        with self._lock:
            self._requested += requested
            self._hits += hits
            self._misses += misses


def _first_positions(texts: Sequence[str], skip: Container[int]) -> dict[str, int]:
    """Each distinct text whose index is not in `skip` → where it first occurs."""
    first: dict[str, int] = {}
    for i, text in enumerate(texts):
        if i not in skip:
            first.setdefault(text, i)
    return first

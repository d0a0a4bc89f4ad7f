"""Each cached vector carries the sha256 of what spanlab stored (§21), so a vector changed
in place by someone who can write the file (`UPDATE embeddings SET vector = zeroblob(…)`
in a group's shared cache) is found on read, dropped and embedded again, and said.

The digests sit in a table of their own, so a cache an older spanlab made stays readable
as it was; the rows it holds when this spanlab first opens it for writing are taken as
spanlab's (sealed then). The digest is not keyed: a member who recomputes it with
spanlab's code leaves no trace. That is why a team's caches are per account
(`accounts`): there no one but the owner can write a file at all.
"""

from __future__ import annotations

import hashlib
import sqlite3

DIGESTS = """
CREATE TABLE IF NOT EXISTS vector_digests (
    fingerprint TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    digest TEXT NOT NULL,
    PRIMARY KEY (fingerprint, text_sha256)
)
"""
"""One digest per stored vector."""


def digest(fingerprint: str, key: str, dim: int, blob: bytes) -> str:
    """sha256 of a row as spanlab wrote it: model, text hash, width and the vector's bytes."""
    head = f"{fingerprint}\0{key}\0{dim}\0".encode()
    return hashlib.sha256(head + blob).hexdigest()


def present(conn: sqlite3.Connection) -> bool:
    """Whether the file keeps digests (an older spanlab's does not)."""
    sql = "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'vector_digests'"
    return conn.execute(sql).fetchone() is not None


def seal_all(conn: sqlite3.Connection) -> int:
    """Digest every row that has none (a cache an older spanlab filled); how many, in one
    transaction with the table's creation."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(DIGESTS)
        rows = conn.execute(
            "SELECT e.fingerprint, e.text_sha256, e.dim, e.vector FROM embeddings e "
            "LEFT JOIN vector_digests d USING (fingerprint, text_sha256) WHERE d.digest IS NULL"
        ).fetchall()
        conn.executemany(
            "INSERT INTO vector_digests VALUES (?, ?, ?)",
            [(f, k, digest(f, k, d, b)) for f, k, d, b in rows if _row(d, b)],
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return len(rows)


def _row(dim: object, blob: object) -> bool:
    return isinstance(dim, int) and isinstance(blob, bytes)


def holds(stored: object, fingerprint: str, key: str, dim: object, blob: object) -> bool:
    """Whether a row read back is what spanlab wrote (its digest is there and matches)."""
    if not isinstance(stored, str) or not _row(dim, blob):
        return False
    assert isinstance(dim, int) and isinstance(blob, bytes)
    return stored == digest(fingerprint, key, dim, blob)

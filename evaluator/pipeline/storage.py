"""What a project keeps on disk for its runs — the embedding cache and Chroma's collections —
and the pruning of collections no run needs (§6, `spanlab cache`).

Collections are pruned only in the embedded folder: a shared server's collections belong
to every project on it (they are listed, and each eval cleans up its own candidates'). The
embedding cache is never pruned: a vector is valid forever for its model and text, and the
next corpus version may need it again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.retrieval.chroma_lease import (
    Collection,
    collections,
    collections_of,
    folder_bytes,
    remove_unused,
    superseded,
)
from labeler.core.project import config


@dataclass(frozen=True)
class Storage:
    """The project's cache and indexes, as `spanlab cache` shows them."""

    cache_path: Path
    """The embedding cache."""
    cache_bytes: int
    """Its size on disk, WAL included."""
    vectors: dict[str, int]
    """Model fingerprint -> vectors stored."""
    chroma_path: Path
    """Embedded Chroma's folder."""
    chroma_bytes: int
    """Its size on disk."""
    collections: tuple[Collection, ...]
    """Every spanlab collection there."""
    stale: tuple[str, ...]
    """Names of collections no run needs (superseded or incomplete)."""


@dataclass(frozen=True)
class ServerStorage:
    """The spanlab collections on a Chroma server, as `spanlab cache` shows them."""

    url: str
    """The server."""
    collections: tuple[Collection, ...] = ()
    """Every spanlab collection there (markers aside)."""
    readers: dict[str, int] = field(default_factory=dict)
    """Collection name -> runs holding a live lease on it."""
    building: frozenset[str] = frozenset()
    """Collections a run holds the build lock of."""
    stale: tuple[str, ...] = ()
    """Collections the next eval of their candidate removes (an earlier spanlab's)."""
    stale_marks: int = 0
    """Markers a killed run left (the next run of their candidate removes them)."""
    error: str | None = None
    """Why the server could not be listed."""


def server_storage(url: str, timeout: float | None) -> ServerStorage:
    """Look at a server, change nothing; an unreachable one is `error`, not an exception."""
    from evaluator.retrieval.chroma import connect, earlier_leftover
    from evaluator.retrieval.chroma_http import CALL_TIMEOUT, server_errors
    from evaluator.retrieval.chroma_marks import markers
    from labeler.core.errors import SpanlabError

    timeout = timeout or CALL_TIMEOUT
    try:
        with server_errors(url, timeout):
            found = connect(url, None, timeout=timeout).list_collections()
    except SpanlabError as exc:
        return ServerStorage(url, error=exc.message)
    marks = markers(found)
    readers: dict[str, int] = {}
    for m in marks:
        if m.kind == "lease" and m.live:
            readers[m.of] = readers.get(m.of, 0) + 1
    building = frozenset(m.of for m in marks if m.kind == "lock" and m.live)
    spanlab = collections_of(found)
    now, meta = time.time(), {c.name: c.metadata or {} for c in found}
    stale = tuple(c.name for c in spanlab if c.name not in building
                  and earlier_leftover(c.name, meta[c.name], now))  # fmt: skip
    return ServerStorage(url, tuple(spanlab), readers, building, stale,
                         sum(1 for m in marks if not m.live))  # fmt: skip


def storage(proj: config.Project) -> Storage:
    """Look, change nothing."""
    from evaluator.embedding.cache import EmbeddingCache
    from labeler.core.project.cache_place import CachePlace, own_file, place_of

    where = place_of(proj)
    path = own_file(where) or proj.embedding_cache  # one's own, in a team (§21)
    vectors: dict[str, int] = {}
    if path.exists():
        with EmbeddingCache(path, private=isinstance(where, CachePlace)) as cache:
            vectors = cache.by_model()
    found = _collections(proj.chroma_path)
    cache_bytes = sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())
    return Storage(path, cache_bytes, vectors, proj.chroma_path, folder_bytes(proj.chroma_path),
                   tuple(found), tuple(c.name for c in superseded(found)))  # fmt: skip


def prune(proj: config.Project) -> tuple[list[Collection], int]:
    """Remove the collections no run needs and no run holds; those removed, bytes freed."""
    from evaluator.retrieval.chroma import connect

    if not (proj.chroma_path / "chroma.sqlite3").exists():
        return [], 0
    before = folder_bytes(proj.chroma_path)
    client = connect(None, str(proj.chroma_path))
    dropped = remove_unused(client, proj.chroma_path, superseded(collections(client)))
    return dropped, before - folder_bytes(proj.chroma_path)


def _collections(folder: Path) -> list[Collection]:
    if not (folder / "chroma.sqlite3").exists():
        return []
    from evaluator.retrieval.chroma import connect

    return collections(connect(None, str(folder)))

"""What a project keeps on disk for its runs — the embedding cache and Chroma's collections —
and the pruning of collections no run needs (§6, `spanlab cache`).

Collections are pruned only in the embedded folder: a shared server's collections belong
to every project on it. The embedding cache is never pruned: a vector is valid forever
for its model and text, and the next corpus version may need it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evaluator.retrieval.chroma_lease import (
    Collection,
    collections,
    folder_bytes,
    remove_unused,
    superseded,
)
from labeler.core import config


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


def storage(proj: config.Project) -> Storage:
    """Look, change nothing."""
    from evaluator.embedding.cache import EmbeddingCache

    path = proj.embedding_cache
    vectors: dict[str, int] = {}
    if path.exists():
        with EmbeddingCache(path) as cache:
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

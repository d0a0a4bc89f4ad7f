"""The vector source of a run: texts in, vectors out, through the cached embedder.

The model loads on first use, so a lexical run never loads one. Progress is handed in
as a task factory, so this wing draws no bars itself and knows nothing of the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from evaluator.embedding.accounts import open_cache
from evaluator.embedding.base import Progress, Vectors
from evaluator.embedding.cache import CachedEmbedder
from labeler.core.project.cache_place import CacheWhere

TaskFactory = Callable[[str, int], AbstractContextManager[Progress]]
"""`task(description, total)` yields a Progress callback for the duration of the work."""


@contextmanager
def no_progress(description: str, total: int) -> Iterator[Progress]:
    """A task that shows nothing."""
    yield lambda n: None


class VectorSource:
    """Embeds chunk and query texts through the cached embedder, created on first use."""

    def __init__(self, name: str, cache_path: CacheWhere, task: TaskFactory = no_progress) -> None:
        self.name = name
        """The configured embedding (`minilm`, `chroma:default`, …)."""
        self.cache_path = cache_path
        """The embedding cache (SQLite, or a team's accounts' files); None keeps it in memory."""
        self.task = task
        """How long embeddings show their progress."""
        self._embedder: CachedEmbedder | None = None

    @property
    def embedder(self) -> CachedEmbedder:
        if self._embedder is None:
            self._embedder = cached_embedder(self.name, self.cache_path)
        return self._embedder

    def embed(
        self, texts: Sequence[str], what: str, advance: Progress | None = None
    ) -> tuple[Vectors, dict[str, int]]:
        """Vectors for `texts`, and how many were computed and how many came from the cache.
        With `advance` (one part of a longer task) no progress task of its own is shown."""
        before = self.embedder.stats()
        if advance is not None:
            vectors = self.embedder.embed(list(texts), progress=advance)
        else:
            with self.task(f"embedding {what}", len(texts)) as advance:
                vectors = self.embedder.embed(list(texts), progress=advance)
        after = self.embedder.stats()
        return vectors, {
            "computed": after.misses - before.misses,
            "cached": after.hits - before.hits,
        }


def cached_embedder(name: str, cache_path: CacheWhere) -> CachedEmbedder:
    """The embedding `name` behind the cache at `cache_path` (None: in memory), so the
    evaluator and every app on a project embed each text once between them."""
    from evaluator.embedding import load_embedder

    return CachedEmbedder(load_embedder(name), open_cache(cache_path))

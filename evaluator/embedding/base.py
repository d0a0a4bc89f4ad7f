"""What every embedding model offers the evaluator, and the helpers they share (§6).

The evaluator holds the model fixed across candidates, so an embedder is a value-like
object with a fingerprint that names exactly what produced its vectors; runs record it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
"""Rows of float32 vectors, one per text, shape (n, dim)."""

Progress = Callable[[int], None]
"""Called with how many more texts are done; the calls of one `embed` sum to its n."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows; the same texts always give the same rows."""

    @property
    def fingerprint(self) -> str:
        """Model id, weight and tokenizer hashes, pooling and truncation: what a run records."""
        ...

    @property
    def dim(self) -> int:
        """Width of every vector."""
        ...

    @property
    def model_id(self) -> str:
        """A short human name for the model (`all-MiniLM-L6-v2-onnx-int8`)."""
        ...

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        """Shape (len(texts), dim), float32, unit rows, in the order of `texts`."""
        ...


def l2_normalize(vectors: npt.NDArray[np.floating]) -> Vectors:
    """Unit rows in float32; an all-zero row stays zero instead of becoming NaN."""
    rows = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.asarray(rows / np.maximum(norms, np.float32(1e-12)), dtype=np.float32)


def vector_problem(vectors: npt.NDArray[np.floating], n: int, width: int | None) -> str | None:
    """Why `vectors` may not be kept as the rows of `n` texts of `width` (None: any), or None.

    The one check every vector passes before it is cached or indexed (§6): one row per
    text, every row of the width, every value finite once it is float32."""
    if vectors.ndim != 2 or vectors.shape[0] != n:
        return f"{vectors.shape[0] if vectors.ndim else 0} vectors for {n} texts"
    if vectors.shape[1] == 0 or (width is not None and vectors.shape[1] != width):
        return f"vectors of width {vectors.shape[1]}, not the model's {width}"
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.isfinite(np.asarray(vectors, dtype=np.float32)).all(axis=1)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        return f"a vector that is not finite (NaN, Inf or beyond float32), row {bad}"
    return None


def text_sha256(text: str) -> str:
    """The cache key of a text: sha256 of its exact UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_file_hashes: dict[tuple[str, int, int], str] = {}
_file_hashes_lock = threading.Lock()


def file_sha256(path: Path) -> str:
    """sha256 of a file, computed once per process per (path, mtime, size)."""
    resolved = path.resolve()
    stat = resolved.stat()
    key = (str(resolved), stat.st_mtime_ns, stat.st_size)
    with _file_hashes_lock:
        cached = _file_hashes.get(key)
    if cached is not None:
        return cached
    digest = hashlib.sha256()
    with resolved.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    value = digest.hexdigest()
    with _file_hashes_lock:
        _file_hashes[key] = value
    return value


def cpu_count() -> int:
    """Cores this process may run on (the affinity mask, not the machine's total)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class VectorCache(Protocol):
    """What CachedEmbedder asks of a cache: one file (EmbeddingCache) or a team's accounts'
    files (`accounts.AccountCaches`)."""

    path: str

    def get_many(
        self, fingerprint: str, texts: Sequence[str], dim: int | None = None
    ) -> dict[int, Vectors]: ...

    def put_many(self, fingerprint: str, texts: Sequence[str], vectors: Vectors) -> None: ...

    def measured(self, fingerprint: str, texts: int, seconds: float) -> None: ...

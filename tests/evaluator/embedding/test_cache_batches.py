"""The cache commits each checked batch as it completes, repairs damaged rows, and names a
location it cannot write (§6)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from evaluator.embedding import CachedEmbedder, EmbeddingCache
from evaluator.embedding.base import Progress, Vectors
from labeler.core.errors import ConfigError
from tests.evaluator.embedding.test_cache import LetterCounts


class StopsAfter(LetterCounts):
    """Embeds `calls` batches, then is interrupted as Ctrl-C would interrupt it."""

    def __init__(self, calls: int) -> None:
        super().__init__()
        self.left = calls

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().embed(texts, progress)


class Broken(LetterCounts):
    """Answers with a NaN in the second row, or one row too few."""

    def __init__(self, short: bool = False) -> None:
        super().__init__()
        self.short = short

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        vectors = super().embed(texts, progress)
        if self.short:
            return vectors[1:]
        vectors[1, 0] = np.nan
        return vectors


TEXTS = [f"a{'b' * i}" for i in range(10)]
"""Ten distinct texts of ten lengths: batches of 3 are texts 0-2, 3-5, 6-8, 9."""


def test_an_interrupt_keeps_every_batch_committed_before_it(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    with EmbeddingCache(path) as cache, pytest.raises(KeyboardInterrupt):
        CachedEmbedder(StopsAfter(calls=2), cache, batch=3).embed(TEXTS)
    model = LetterCounts()
    steps: list[int] = []
    with EmbeddingCache(path) as cache:
        assert cache.count() == 6
        again = CachedEmbedder(model, cache, batch=3)
        again.embed(TEXTS, progress=steps.append)
    assert model.calls == [TEXTS[6:9], TEXTS[9:]]
    assert steps == [6, 3, 1]  # the bar starts where the interrupted run stopped
    assert (again.stats().hits, again.stats().misses) == (6, 4)


def test_a_vector_with_nan_is_refused_and_its_batch_not_stored() -> None:
    cache = EmbeddingCache(":memory:")
    with pytest.raises(ConfigError, match=r"1 vector\(s\) with NaN or infinite values"):
        CachedEmbedder(Broken(), cache, batch=3).embed(TEXTS)
    assert cache.count() == 0


def test_a_missing_vector_is_refused() -> None:
    cache = EmbeddingCache(":memory:")
    with pytest.raises(ConfigError, match=r"returned shape \(2, 4\) for 3 texts"):
        CachedEmbedder(Broken(short=True), cache, batch=3).embed(TEXTS)
    assert cache.count() == 0


def test_damaged_rows_are_dropped_and_embedded_again(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    with EmbeddingCache(path) as cache:
        CachedEmbedder(LetterCounts(), cache).embed(["ab", "cd", "ad"])
    with sqlite3.connect(path) as conn:  # a NaN, a short blob and a foreign width
        nan = np.array([np.nan, 0, 0, 0], "<f4").tobytes()
        conn.execute("UPDATE embeddings SET vector = ? WHERE rowid = 1", (nan,))
        conn.execute("UPDATE embeddings SET vector = x'00' WHERE rowid = 2")
        conn.execute("UPDATE embeddings SET dim = 2, vector = ? WHERE rowid = 3",
                     (np.zeros(2, "<f4").tobytes(),))  # fmt: skip
    model = LetterCounts()
    with EmbeddingCache(path) as cache:
        vectors = CachedEmbedder(model, cache).embed(["ab", "cd", "ad"])
        assert cache.repaired == 3
        assert cache.count() == 3
    assert sorted(model.calls[0]) == ["ab", "ad", "cd"]
    assert np.isfinite(vectors).all()
    h = float(np.sqrt(0.5))
    np.testing.assert_allclose(vectors[0], [h, h, 0, 0], atol=1e-6)


def test_a_cache_that_cannot_be_made_names_its_file(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder", encoding="utf-8")
    target = tmp_path / "blocker" / "embeddings.db"
    with pytest.raises(ConfigError) as caught:
        EmbeddingCache(target)
    assert caught.value.file == str(target)
    assert "cannot be written" in caught.value.message
    assert "SPANLAB_CACHE" in (caught.value.hint or "")

"""The embedding cache: each distinct text is embedded once per model fingerprint."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from evaluator.embedding import CachedEmbedder, CacheStats, Embedder, EmbeddingCache
from evaluator.embedding.base import Progress, Vectors, l2_normalize

H = float(np.sqrt(0.5))
"""1/√2: the unit vector of two equal counts."""


class LetterCounts:
    """Counts of a, b, c, d in each text, normalised: vectors you can work out by hand."""

    def __init__(self, fingerprint: str = "letters-v1") -> None:
        self.fingerprint = fingerprint
        self.dim = 4
        self.model_id = "letters"
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        self.calls.append(list(texts))
        if progress is not None:
            progress(len(texts))
        counts = [[text.count(letter) for letter in "abcd"] for text in texts]
        return l2_normalize(np.array(counts, dtype=np.float32).reshape(len(texts), 4))


@pytest.fixture
def cache() -> EmbeddingCache:
    return EmbeddingCache(":memory:")


def test_letter_counts_is_an_embedder() -> None:
    assert isinstance(LetterCounts(), Embedder)


def test_first_call_embeds_each_distinct_text_once(cache: EmbeddingCache) -> None:
    model = LetterCounts()
    cached = CachedEmbedder(model, cache)
    vectors = cached.embed(["ab", "cd", "ab"])
    assert model.calls == [["ab", "cd"]]
    np.testing.assert_allclose(vectors, [[H, H, 0, 0], [0, 0, H, H], [H, H, 0, 0]], atol=1e-6)
    assert cached.stats() == CacheStats(requested=3, hits=0, misses=2)


def test_second_call_embeds_nothing(cache: EmbeddingCache) -> None:
    model = LetterCounts()
    cached = CachedEmbedder(model, cache)
    cached.embed(["ab", "cd", "ab"])
    vectors = cached.embed(["cd", "ab"])
    assert model.calls == [["ab", "cd"]]
    np.testing.assert_allclose(vectors, [[0, 0, H, H], [H, H, 0, 0]], atol=1e-6)
    assert cached.stats() == CacheStats(requested=5, hits=2, misses=2)


def test_only_misses_reach_the_model(cache: EmbeddingCache) -> None:
    model = LetterCounts()
    cached = CachedEmbedder(model, cache)
    cached.embed(["ab"])
    steps: list[int] = []
    vectors = cached.embed(["ab", "dd", "ab", "ab "], progress=steps.append)
    # "ab " differs from "ab" by one space: the key is the exact text.
    assert model.calls == [["ab"], ["dd", "ab "]]
    assert steps == [2, 2]
    np.testing.assert_allclose(vectors[1], [0, 0, 0, 1], atol=1e-6)
    assert cached.stats() == CacheStats(requested=5, hits=1, misses=3)


def test_another_fingerprint_misses(cache: EmbeddingCache) -> None:
    first, second = LetterCounts("letters-v1"), LetterCounts("letters-v2")
    CachedEmbedder(first, cache).embed(["ab", "cd"])
    other = CachedEmbedder(second, cache)
    other.embed(["ab", "cd"])
    assert second.calls == [["ab", "cd"]]
    assert other.stats() == CacheStats(requested=2, hits=0, misses=2)
    assert (cache.count("letters-v1"), cache.count("letters-v2"), cache.count()) == (2, 2, 4)


def test_get_many_maps_every_position_of_a_cached_text(cache: EmbeddingCache) -> None:
    cache.put_many("fp", ["ab"], np.array([[H, H, 0, 0]], dtype=np.float32))
    found = cache.get_many("fp", ["ab", "zz", "ab"])
    assert sorted(found) == [0, 2]
    np.testing.assert_array_equal(found[2], np.array([H, H, 0, 0], dtype=np.float32))
    assert found[0].dtype == np.float32


def test_put_many_keeps_the_first_vector(cache: EmbeddingCache) -> None:
    cache.put_many("fp", ["ab"], np.array([[1, 0]], dtype=np.float32))
    cache.put_many("fp", ["ab"], np.array([[0, 1]], dtype=np.float32))
    np.testing.assert_array_equal(cache.get_many("fp", ["ab"])[0], [1, 0])


def test_put_many_refuses_mismatched_lengths(cache: EmbeddingCache) -> None:
    with pytest.raises(ValueError, match="2 texts but 1 vectors"):
        cache.put_many("fp", ["a", "b"], np.zeros((1, 4), dtype=np.float32))


def test_lookup_beyond_one_select_batch(cache: EmbeddingCache) -> None:
    texts = [f"text {i}" for i in range(1200)]
    vectors = np.arange(1200 * 2, dtype=np.float32).reshape(1200, 2)
    cache.put_many("fp", texts, vectors)
    found = cache.get_many("fp", texts)
    assert len(found) == 1200
    np.testing.assert_array_equal(found[1199], [2398, 2399])


def test_file_cache_persists_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    with EmbeddingCache(path) as cache:
        CachedEmbedder(LetterCounts(), cache).embed(["abc"])
    model = LetterCounts()
    with EmbeddingCache(path) as cache:
        reopened = CachedEmbedder(model, cache)
        vectors = reopened.embed(["abc"])
    assert model.calls == []
    third = float(np.sqrt(1 / 3))
    np.testing.assert_allclose(vectors, [[third, third, third, 0]], atol=1e-6)
    assert reopened.stats() == CacheStats(requested=1, hits=1, misses=0)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_cached_embedder_passes_the_model_identity_through(cache: EmbeddingCache) -> None:
    cached = CachedEmbedder(LetterCounts("letters-v7"), cache)
    assert (cached.fingerprint, cached.dim, cached.model_id) == ("letters-v7", 4, "letters")
    assert cached.embed([]).shape == (0, 4)

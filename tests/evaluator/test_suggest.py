"""Suggested evidence fused with embeddings: reciprocal-rank fusion, the lexical fallback
when no embedder is at hand, the cache per corpus, and the hit a benchmark counts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from evaluator.embedding.base import Progress, Vectors, l2_normalize
from evaluator.retrieval import suggest
from evaluator.retrieval.suggest import (
    RRF_K,
    SuggesterCache,
    first_hit,
    rrf,
    with_embeddings,
)
from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.suggest import SentenceIndex
from labeler.core.errors import ConfigError

TEXT = (
    "Refunds take five days. Your money comes back within a week.\n"
    "Shipping is free over 50 euros. Returns need a label.\n"
)
CONCEPTS = {"refunds": 0, "money": 0, "shipping": 1, "free": 1, "label": 2, "returns": 2}
"""The fake model's meaning: words of one concept share an axis."""


class ConceptEmbedder:
    """Deterministic vectors: one axis per concept, plus a small axis so none is zero."""

    fingerprint = "concepts/1"
    dim = 4
    model_id = "concepts"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        self.calls.append(len(texts))
        rows = np.full((len(texts), self.dim), 0.01, dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace("?", " ").split():
                if word in CONCEPTS:
                    rows[i, CONCEPTS[word]] += 1.0
        return l2_normalize(rows)


@pytest.fixture
def index() -> SentenceIndex:
    return SentenceIndex(Corpus.from_texts({"billing.md": TEXT}))


def test_rrf_sums_the_reciprocal_ranks() -> None:
    assert rrf([1, 2]) == pytest.approx(1 / 61 + 1 / 62)
    assert rrf([None, 3]) == pytest.approx(1 / (RRF_K + 3))
    assert rrf([None, None]) == 0.0


def test_a_paraphrase_comes_in_through_the_embedding(index: SentenceIndex) -> None:
    query = "When do refunds arrive?"
    assert [s.text for s in index.suggest(query, 5)] == ["Refunds take five days."]
    fused = with_embeddings(index, ConceptEmbedder()).suggest(query, 2)
    assert [s.text for s in fused] == [
        "Refunds take five days.",  # bm25 #1 and embedding #1 or #2
        "Your money comes back within a week.",  # embedding only
    ]
    assert fused[1].lexical_rank is None and fused[1].dense_rank in (1, 2)
    assert fused[0].score == pytest.approx(rrf([1, fused[0].dense_rank]))
    assert fused[1].marks == ()  # no query word in it


def test_without_an_embedder_it_ranks_lexically_and_says_why(index: SentenceIndex) -> None:
    def missing() -> ConceptEmbedder:
        raise ConfigError("the embedding model needs the package x, which is not installed")

    corpus = index.corpus
    suggester = SuggesterCache().get(corpus, "minilm", missing)
    assert suggester is not None and suggester.vectors is None
    assert suggester.note == (
        "lexical only (embedder unavailable: "
        "the embedding model needs the package x, which is not installed)"
    )
    assert suggester.suggest("refunds", 5) == index.suggest("refunds", 5)
    lexical = SuggesterCache().get(corpus, None, None)
    assert lexical is not None and lexical.note == "lexical only (no embedding configured)"


def test_a_stopped_build_resumes_where_it_stopped(
    index: SentenceIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suggest, "EMBED_BATCH", 3)
    cache, model, asked = SuggesterCache(), ConceptEmbedder(), []

    def stop_after_one_batch() -> bool:
        asked.append(True)
        return len(asked) > 1

    assert cache.get(index.corpus, "concepts", lambda: model, stop_after_one_batch) is None
    assert model.calls == [3] and cache.ready(index.corpus, "concepts") is None
    resumed = cache.get(index.corpus, "concepts", lambda: model)
    assert model.calls == [3, 1]  # the fourth sentence only
    whole = with_embeddings(index, ConceptEmbedder())
    assert resumed is not None and resumed.vectors is not None and whole.vectors is not None
    assert np.array_equal(resumed.vectors, whole.vectors)


def test_a_blank_query_suggests_nothing_even_with_embeddings(index: SentenceIndex) -> None:
    assert with_embeddings(index, ConceptEmbedder()).suggest("  ", 5) == []


def test_the_cache_builds_once_per_corpus_and_embedding() -> None:
    corpus = Corpus.from_texts({"billing.md": TEXT})
    cache, model = SuggesterCache(), ConceptEmbedder()
    assert cache.ready(corpus, "concepts") is None
    first = cache.get(corpus, "concepts", lambda: model)
    assert first is not None
    assert cache.get(corpus, "concepts", lambda: model) is first
    assert cache.ready(corpus, "concepts") is first
    assert model.calls == [4]  # the four sentences, embedded once
    assert cache.lexical(corpus).index is first.index  # one sentence index per corpus
    other = Corpus.from_texts({"billing.md": TEXT + "More.\n"})
    second = cache.get(other, "concepts", lambda: model)
    assert second is not None and second.index is not first.index


def test_first_hit_is_the_first_suggestion_overlapping_evidence(index: SentenceIndex) -> None:
    ranked = index.suggest("refunds shipping returns", 5)
    texts = [s.text for s in ranked]
    label = ("billing.md", 61 + 10, 61 + 20)  # inside "Shipping is free over 50 euros."
    assert first_hit(ranked, [label]) == texts.index("Shipping is free over 50 euros.") + 1
    assert first_hit(ranked, [("billing.md", 23, 24)]) is None  # the space between two
    assert first_hit(ranked, [("other.md", 0, 10)]) is None

"""Suggested evidence with a model in the loop: BM25 fused with embedding similarity.

The lexical rank (labeler.core.suggest) finds sentences sharing the question's rare words;
the embedder finds paraphrases. Reciprocal-rank fusion (Cormack et al. 2009,
score = Σ 1/(K + rank)) needs no score calibration between the two. The embedder is
optional: without it the suggester says why and ranks by BM25 alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evaluator.embedding.base import Embedder, Vectors
from labeler.core.corpus import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.suggest import SentenceIndex, Suggestion

RRF_K = 60
"""Reciprocal-rank fusion's damping constant (the paper's value)."""
DENSE_DEPTH = 100
"""Embedding ranks taken into the fusion (the rest add nothing measurable)."""


def rrf(ranks: list[int | None], k: int = RRF_K) -> float:
    """Σ 1/(k + rank) over the rankers that ranked the item."""
    return sum(1.0 / (k + r) for r in ranks if r is not None)


@dataclass
class Suggester:
    """The sentence index, and its sentence vectors when an embedder is at hand."""

    index: SentenceIndex
    """BM25 over every sentence."""
    embedder: Embedder | None = None
    """The model queries are embedded with (None: lexical only)."""
    vectors: Vectors | None = None
    """One L2-normalised row per passage of `index`, when `embedder` is set."""
    note: str = "lexical only"
    """How it ranks, in words for the screen: `lexical + <model>` or why lexical only."""

    def suggest(self, query: str, limit: int = 10) -> list[Suggestion]:
        """The `limit` best sentences for `query`, best first."""
        if self.embedder is None or self.vectors is None or not query.strip():
            return self.index.suggest(query, limit)
        lexical = {i: r for r, (i, _s) in enumerate(self.index.ranked(query), 1)}
        sims = self.vectors @ self.embedder.embed([query])[0]
        top = np.argsort(-sims, kind="stable")[:DENSE_DEPTH]
        dense = {int(i): r for r, i in enumerate(top, 1)}
        fused = {i: rrf([lexical.get(i), dense.get(i)]) for i in lexical.keys() | dense.keys()}
        best = sorted(fused, key=lambda i: (-fused[i], i))[:limit]
        return [self.index.suggestion(i, query, fused[i], lexical.get(i), dense.get(i))
                for i in best]  # fmt: skip


def with_embeddings(index: SentenceIndex, embedder: Embedder) -> Suggester:
    """Embed every sentence once; the suggester then fuses both ranks."""
    texts = [index.text(i) for i in range(len(index))]
    vectors = embedder.embed(texts) if texts else np.zeros((0, embedder.dim), np.float32)
    return Suggester(index, embedder, vectors, f"lexical + {embedder.model_id}")


EmbedderFactory = Callable[[], Embedder]
"""Loads the embedder; raises SpanlabError (or an OS error) when it is not at hand."""


def build_suggester(index: SentenceIndex, load: EmbedderFactory | None) -> Suggester:
    """Fused when `load` gives an embedder that works, else lexical with the reason."""
    if load is None:
        return Suggester(index, note="lexical only (no embedding configured)")
    try:
        return with_embeddings(index, load())
    except (SpanlabError, OSError, RuntimeError, ImportError) as exc:
        reason = exc.message if isinstance(exc, SpanlabError) else str(exc)
        return Suggester(index, note=f"lexical only (embedder unavailable: {reason})")


class SuggesterCache:
    """Suggesters by (corpus hash, embedding name): a second ask is free.

    Two asks at once build once; the lexical index has its own lock, so it is at hand
    while the sentences are being embedded.
    """

    def __init__(self) -> None:
        self._indexes: dict[str, SentenceIndex] = {}
        self._built: dict[tuple[str, str | None], Suggester] = {}
        self._index_lock = threading.Lock()
        self._lock = threading.Lock()

    def index(self, corpus: Corpus) -> SentenceIndex:
        """The lexical index of `corpus`, built on first use."""
        with self._index_lock:
            if corpus.hash not in self._indexes:
                self._indexes[corpus.hash] = SentenceIndex(corpus)
            return self._indexes[corpus.hash]

    def lexical(self, corpus: Corpus) -> Suggester:
        """A lexical suggester over the cached index (to show while embeddings build)."""
        return Suggester(self.index(corpus), note="lexical")

    def get(self, corpus: Corpus, name: str | None, load: EmbedderFactory | None) -> Suggester:
        """The suggester of `corpus` with embedding `name` (loaded by `load`), built once."""
        key = (corpus.hash, name)
        with self._lock:
            if key not in self._built:
                self._built[key] = build_suggester(self.index(corpus), load)
            return self._built[key]

    def ready(self, corpus: Corpus, name: str | None) -> Suggester | None:
        """The suggester if it is built already (without waiting for one being built)."""
        return self._built.get((corpus.hash, name))


def first_hit(suggestions: list[Suggestion], evidence: list[tuple[str, int, int]]) -> int | None:
    """1-based rank of the first suggestion overlapping (by a character) a piece of evidence."""
    for rank, s in enumerate(suggestions, 1):
        if any(d == s.doc and a < s.end and s.start < b for d, a, b in evidence):
            return rank
    return None

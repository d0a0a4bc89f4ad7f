"""Suggested evidence with a model in the loop: BM25 fused with embedding similarity.

The lexical rank (labeler.core.corpus.suggest) finds sentences sharing the question's rare words;
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
from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.suggest import SentenceIndex, Suggestion
from labeler.core.errors import SpanlabError

RRF_K = 60
"""Reciprocal-rank fusion's damping constant (the paper's value)."""
DENSE_DEPTH = 100
"""Embedding ranks taken into the fusion (the rest add nothing measurable)."""
EMBED_BATCH = 64
"""Sentences embedded per call; a build can stop between calls (well under a second)."""


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


Stop = Callable[[], bool]
"""Asked between batches: True stops the build (the screen closed, the app is quitting)."""
EmbedderFactory = Callable[[], Embedder]
"""Loads the embedder; raises SpanlabError (or an OS error) when it is not at hand."""
UNAVAILABLE = (SpanlabError, OSError, RuntimeError, ImportError)
"""What a model that cannot load or run raises: the suggester then ranks lexically."""


def never() -> bool:
    return False


class SentenceEmbedding:
    """The sentence vectors of an index, embedded a batch at a time so that a build can
    stop between batches and resume where it stopped. Sentences go shortest first, so a
    batch pads little (as the evaluator's embedder does within one call)."""

    def __init__(self, index: SentenceIndex, embedder: Embedder) -> None:
        self.index = index
        """Whose sentences are embedded."""
        self.embedder = embedder
        """The model, loaded once for the whole build."""
        sizes = [p.end - p.start for p in index.passages]
        self._order = sorted(range(len(index)), key=sizes.__getitem__)
        self._parts: list[Vectors] = []
        self._done = 0

    def run(self, stop: Stop = never) -> Suggester | None:
        """The fused suggester once every sentence is embedded; None when `stop` said so."""
        while self._done < len(self.index):
            if stop():
                return None
            upto = min(self._done + EMBED_BATCH, len(self.index))
            texts = [self.index.text(i) for i in self._order[self._done : upto]]
            self._parts.append(self.embedder.embed(texts))
            self._done = upto
        vectors = np.zeros((len(self.index), self.embedder.dim), np.float32)
        if self._parts:
            vectors[self._order] = np.concatenate(self._parts)
        return Suggester(self.index, self.embedder, vectors, f"lexical + {self.embedder.model_id}")


def with_embeddings(index: SentenceIndex, embedder: Embedder) -> Suggester:
    """Embed every sentence; the suggester then fuses both ranks."""
    built = SentenceEmbedding(index, embedder).run()
    assert built is not None  # `never` stops
    return built


def unavailable(index: SentenceIndex, exc: BaseException) -> Suggester:
    """A lexical suggester saying why the embedder could not help."""
    reason = exc.message if isinstance(exc, SpanlabError) else str(exc)
    return Suggester(index, note=f"lexical only (embedder unavailable: {reason})")


class SuggesterCache:
    """Suggesters by (corpus hash, embedding name): a second ask is free.

    Two asks at once build once; a stopped build resumes on the next ask. The lexical
    index has its own lock, so it is at hand while the sentences are being embedded.
    """

    def __init__(self) -> None:
        self._indexes: dict[str, SentenceIndex] = {}
        self._built: dict[tuple[str, str | None], Suggester] = {}
        self._builds: dict[tuple[str, str | None], SentenceEmbedding] = {}
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

    def get(
        self, corpus: Corpus, name: str | None, load: EmbedderFactory | None, stop: Stop = never
    ) -> Suggester | None:
        """The suggester of `corpus` with embedding `name` (loaded by `load`; None: lexical
        only), built once; None when `stop` stopped the build (the next ask resumes it)."""
        key = (corpus.hash, name)
        with self._lock:
            if key not in self._built:
                built = self._build(key, self.index(corpus), load, stop)
                if built is None:
                    return None
                self._built[key] = built
            return self._built[key]

    def _build(
        self, key: tuple[str, str | None], index: SentenceIndex, load: EmbedderFactory | None,
        stop: Stop,
    ) -> Suggester | None:  # fmt: skip
        if load is None:
            return Suggester(index, note="lexical only (no embedding configured)")
        try:
            if key not in self._builds:
                self._builds[key] = SentenceEmbedding(index, load())
            built = self._builds[key].run(stop)
        except UNAVAILABLE as exc:
            built = unavailable(index, exc)
        if built is not None:
            self._builds.pop(key, None)
        return built

    def ready(self, corpus: Corpus, name: str | None) -> Suggester | None:
        """The suggester if it is built already (without waiting for one being built)."""
        return self._built.get((corpus.hash, name))


def first_hit(suggestions: list[Suggestion], evidence: list[tuple[str, int, int]]) -> int | None:
    """1-based rank of the first suggestion overlapping (by a character) a piece of evidence."""
    for rank, s in enumerate(suggestions, 1):
        if any(d == s.doc and a < s.end and s.start < b for d, a, b in evidence):
            return rank
    return None

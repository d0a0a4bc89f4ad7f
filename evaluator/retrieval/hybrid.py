"""`retriever = "hybrid"` (§19): BM25 and dense cosine fused by reciprocal rank fusion.

BM25 comes from bm25s (numpy and scipy only, both already here; maintained, and the
scores are Lucene's), over the lexical scorer's terms so `stopwords` and `stem` apply.
The dense list is the exact retriever's (no ANN), so fusion is not blurred by approximate
search. A chunk's fused score is Σ wᵢ / (k + rankᵢ) over both rankings, where BM25 ranks
only the chunks holding a query term (the rest add nothing); ties go to the earlier chunk.
Under a metadata filter (§24) both rankings are over the filter's chunks only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk
from evaluator.retrieval.base import (
    QueryInput,
    Ranked,
    allowed_positions,
    embedded_text,
    top_positions,
)
from evaluator.retrieval.exact import ExactRetriever
from evaluator.retrieval.lexical import Tokenizer
from evaluator.retrieval.treatment import Fusion


class BM25Scorer:
    """BM25 (bm25s, Lucene's variant, k1 = 1.5, b = 0.75) over chunks in a fixed order."""

    def __init__(self, texts: Sequence[str], tokenizer: Tokenizer) -> None:
        import bm25s

        self.tokenizer = tokenizer
        """How text becomes terms."""
        self._index = bm25s.BM25()
        # bm25s refuses an empty vocabulary; a chunk of no terms scores 0 like any miss.
        corpus = [tokenizer.terms(t) or [""] for t in texts]
        self._index.index(corpus, show_progress=False)

    def scores(self, text: str) -> npt.NDArray[np.float64]:
        terms = self.tokenizer.terms(text)
        scored = self._index.get_scores(terms) if terms else np.zeros(self._size())
        return np.asarray(scored, dtype=np.float64)

    def _size(self) -> int:
        return int(self._index.scores["num_docs"])


def ranks(scores: npt.NDArray[np.floating]) -> npt.NDArray[np.int64]:
    """1-based rank of each position, best first, ties to the earlier position."""
    order = np.argsort(-scores, kind="stable")
    out = np.empty(len(scores), dtype=np.int64)
    out[order] = np.arange(1, len(scores) + 1)
    return out


class HybridRetriever:
    def __init__(
        self,
        chunks: Sequence[Chunk],
        texts: Mapping[str, str],
        vectors: npt.NDArray[np.float32],
        fusion: Fusion,
        tokenizer: Tokenizer,
    ) -> None:
        self._dense = ExactRetriever(chunks, vectors)
        self.chunks = self._dense.chunks
        """Chunks in document then offset order: the tie-break order."""
        self.fusion = fusion
        """The RRF constant and weights."""
        self._bm25 = BM25Scorer([embedded_text(c, texts) for c in self.chunks], tokenizer)

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        out: list[list[Ranked]] = []
        every = len(self.chunks)
        position = {c.id: i for i, c in enumerate(self.chunks)}
        for q, dense in zip(queries, self._dense.search(queries, every), strict=True):
            dense_scores = np.zeros(every)
            for r in dense:
                dense_scores[position[r.chunk.id]] = r.score + 2.0  # cosine ≥ -1: all above 0
            lexical = self._bm25.scores(q.text)
            if q.docs is not None:  # chunks outside the filter hold no rank in either list
                outside = np.ones(every, dtype=bool)
                outside[allowed_positions(self.chunks, q.docs)] = False
                lexical[outside] = 0.0
            fused = self.fused(lexical, dense_scores)
            order = top_positions(fused, depth, q.docs, self.chunks)
            out.append([Ranked(self.chunks[i], float(fused[i])) for i in order])
        return out

    def fused(
        self, lexical: npt.NDArray[np.floating], dense: npt.NDArray[np.floating]
    ) -> npt.NDArray[np.float64]:
        """Σ wᵢ / (k + rankᵢ) for each chunk over the two rankings."""
        (w_lex, w_dense), k = self.fusion.weights, self.fusion.k
        from_lexical = np.where(lexical > 0, w_lex / (k + ranks(lexical)), 0.0)
        fused: npt.NDArray[np.float64] = from_lexical + w_dense / (k + ranks(dense))
        return fused

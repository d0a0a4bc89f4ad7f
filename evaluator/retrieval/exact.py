"""Brute-force cosine over the candidate's vectors: chunking isolated from approximate search.

Vectors are L2-normalised, so cosine is a dot product; ties go to the earlier chunk. A
query's metadata filter (§24) limits the chunks ranked.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk
from evaluator.retrieval.base import QueryInput, Ranked, top_positions


class ExactRetriever:
    def __init__(self, chunks: Sequence[Chunk], vectors: npt.NDArray[np.float32]) -> None:
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        order = sorted(range(len(chunks)), key=lambda i: (chunks[i].doc, chunks[i].start))
        self.chunks = [chunks[i] for i in order]
        """Chunks in document then offset order: the tie-break order."""
        matrix = np.asarray(vectors, dtype=np.float32)[order]
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self._matrix = matrix / np.where(norms == 0, 1.0, norms)

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        out: list[list[Ranked]] = []
        for q in queries:
            if q.vector is None:
                raise ValueError(f"query {q.id} has no vector")
            vec = np.asarray(q.vector, dtype=np.float32)
            vec = vec / (np.linalg.norm(vec) or 1.0)
            scores = self._matrix @ vec
            order = top_positions(scores, depth, q.docs, self.chunks)
            out.append([Ranked(self.chunks[i], float(scores[i])) for i in order])
        return out

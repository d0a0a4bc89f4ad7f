"""The transparent retriever: the share of a query's distinct tokens found in a chunk.

Tokens are lower-case `[a-z0-9]+` runs. No embeddings, deterministic, inspectable by
hand; ties go to the earlier chunk (document order, then offset).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from evaluator.chunk import Chunk
from evaluator.retrieval.base import QueryInput, Ranked, embedded_text

TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> set[str]:
    return set(TOKEN.findall(text.lower()))


class LexicalRetriever:
    def __init__(self, chunks: Sequence[Chunk], texts: Mapping[str, str]) -> None:
        self.chunks = sorted(chunks, key=lambda c: (c.doc, c.start, c.end))
        """Chunks in document then offset order: the tie-break order."""
        postings: defaultdict[str, list[int]] = defaultdict(list)
        for i, chunk in enumerate(self.chunks):
            for token in tokens(embedded_text(chunk, texts)):
                postings[token].append(i)
        self._postings = {t: np.asarray(ix, dtype=np.int64) for t, ix in postings.items()}

    def scores(self, text: str) -> np.ndarray:
        wanted = tokens(text)
        counts = np.zeros(len(self.chunks), dtype=np.float64)
        for token in wanted:
            hits = self._postings.get(token)
            if hits is not None:
                counts[hits] += 1.0
        return counts / len(wanted) if wanted else counts

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        out: list[list[Ranked]] = []
        for q in queries:
            scores = self.scores(q.text)
            order = np.argsort(-scores, kind="stable")[:depth]
            out.append([Ranked(self.chunks[i], float(scores[i])) for i in order])
        return out

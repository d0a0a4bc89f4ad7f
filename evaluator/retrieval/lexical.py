"""The transparent retriever: the share of a query's distinct tokens found in a chunk.

Tokens are lower-case `[a-z0-9]+` runs; a candidate may drop English stopwords and stem
(seed 001's scorer swap, §19). No embeddings, deterministic, inspectable by hand; ties go
to the earlier chunk (document order, then offset).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evaluator.chunk import Chunk
from evaluator.retrieval.base import QueryInput, Ranked, embedded_text, top_positions

TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> set[str]:
    return set(TOKEN.findall(text.lower()))


@dataclass(frozen=True)
class Tokenizer:
    """How a lexical scorer turns text into terms."""

    stopwords: bool = False
    """Drop bm25s' English stopword list (Lucene's 33 words)."""
    stem: bool = False
    """Stem each term with Snowball's English stemmer (PyStemmer)."""

    def terms(self, text: str) -> list[str]:
        found = TOKEN.findall(text.lower())
        if self.stopwords:
            from bm25s.stopwords import STOPWORDS_EN

            found = [t for t in found if t not in STOPWORDS_EN]
        return _stemmer()(found) if self.stem else found


def _stemmer() -> Callable[[list[str]], list[str]]:
    import Stemmer

    stem: Callable[[list[str]], list[str]] = Stemmer.Stemmer("english").stemWords
    return stem


class LexicalRetriever:
    def __init__(
        self, chunks: Sequence[Chunk], texts: Mapping[str, str], tokenizer: Tokenizer = Tokenizer()
    ) -> None:
        self.chunks = sorted(chunks, key=lambda c: (c.doc, c.start, c.end))
        """Chunks in document then offset order: the tie-break order."""
        self.tokenizer = tokenizer
        """How text becomes terms."""
        postings: defaultdict[str, list[int]] = defaultdict(list)
        for i, chunk in enumerate(self.chunks):
            for token in set(tokenizer.terms(embedded_text(chunk, texts))):
                postings[token].append(i)
        self._postings = {t: np.asarray(ix, dtype=np.int64) for t, ix in postings.items()}

    def scores(self, text: str) -> np.ndarray:
        wanted = set(self.tokenizer.terms(text))
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
            order = top_positions(scores, depth, q.docs, self.chunks)
            out.append([Ranked(self.chunks[i], float(scores[i])) for i in order])
        return out

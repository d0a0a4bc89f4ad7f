"""Suggested evidence, lexical half: every sentence of the corpus ranked by BM25 for a query.

Sentences are the unit an annotator accepts as a span, so they are the candidates; the
index (postings of folded words, sentence lengths) is built once per corpus and asked
many times. Plain values out, no Textual: the evaluator fuses this rank with embeddings,
the label screen lists it, and a benchmark measures it. The formula is bm25s's Lucene
variant times (k1 + 1), and a test holds the two together; it is not bm25s itself because
importing bm25s (scipy, numba) puts ~1.7 s before the first suggestions, against ~0.1 s.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

from labeler.core.corpus.folder import Corpus
from labeler.core.text.ranges import trimmed
from labeler.core.text.sentences import sentences, terms, word_terms

K1 = 0.9
"""BM25 term-frequency saturation (Anserini's default)."""
B = 0.4
"""BM25 length normalisation, 0 none to 1 full (Anserini's default). Sentences differ in
length less than documents do: on the 472 questions of Chroma's chunking evaluation, top-5
hits are 360 with 0.9/0.4 against 342 with the textbook 1.2/0.75 (the demo: 48 and 50)."""


@dataclass(frozen=True)
class Passage:
    """One candidate sentence: where it is in canonical text."""

    doc: str
    """Document id."""
    start: int
    """First code point (edge white space left out)."""
    end: int
    """One past its last code point."""


@dataclass(frozen=True)
class Suggestion:
    """A sentence proposed as evidence for a query."""

    doc: str
    """Document id."""
    start: int
    """First code point of the sentence."""
    end: int
    """One past its last code point."""
    text: str
    """The sentence: the canonical text at `start:end`."""
    score: float
    """BM25 score, or the fused score when embeddings took part (higher is better)."""
    marks: tuple[tuple[int, int], ...]
    """Offsets (in the document) of the words that are the query's words."""
    lexical_rank: int | None
    """1-based BM25 rank; None when no query word is in it."""
    dense_rank: int | None = None
    """1-based embedding rank, when embeddings took part."""


def marks(text: str, start: int, end: int, wanted: set[str]) -> tuple[tuple[int, int], ...]:
    """The words of `text[start:end]` whose folded form is one of `wanted`."""
    found = {(s, e) for s, e, t in word_terms(text, start, end) if t in wanted}
    return tuple(sorted(found))


class SentenceIndex:
    """Every sentence of a corpus holding at least one word, with BM25 postings."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        """What the offsets point into."""
        self.corpus_hash = corpus.hash
        """The corpus the index was built from (a cache key)."""
        self.passages: list[Passage] = []
        """Candidates, in document then offset order (the tie-break order)."""
        self._postings: defaultdict[str, list[tuple[int, int]]] = defaultdict(list)
        lengths: list[int] = []
        for doc in corpus:
            for start, end in sentences(doc.text, careful=False):  # the whole corpus
                start, end = trimmed(doc.text, start, end)
                counts = Counter(terms(doc.text[start:end]))
                if not counts:
                    continue
                for term, tf in counts.items():
                    self._postings[term].append((len(self.passages), tf))
                self.passages.append(Passage(doc.id, start, end))
                lengths.append(sum(counts.values()))
        self._lengths = lengths
        self._mean = sum(lengths) / len(lengths) if lengths else 1.0

    def __len__(self) -> int:
        return len(self.passages)

    def text(self, i: int) -> str:
        p = self.passages[i]
        return self.corpus.text(p.doc)[p.start : p.end]

    def scores(self, query: str) -> dict[int, float]:
        """BM25 score of every passage holding a query word, by passage index."""
        n = len(self.passages)
        out: defaultdict[int, float] = defaultdict(float)
        for term in set(terms(query)):
            postings = self._postings.get(term, [])
            idf = math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            for i, tf in postings:
                norm = K1 * (1 - B + B * self._lengths[i] / self._mean)
                out[i] += idf * tf * (K1 + 1) / (tf + norm)
        return out

    def ranked(self, query: str) -> list[tuple[int, float]]:
        """(passage index, score) of passages holding a query word, best first."""
        scores = self.scores(query)
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))

    def suggestion(
        self, i: int, query: str, score: float, lexical: int | None, dense: int | None = None
    ) -> Suggestion:
        """Passage `i` as a suggestion for `query` (with its ranks), query words marked."""
        p = self.passages[i]
        text = self.corpus.text(p.doc)
        found = marks(text, p.start, p.end, set(terms(query)))
        return Suggestion(
            p.doc, p.start, p.end, text[p.start : p.end], score, found, lexical, dense
        )

    def suggest(self, query: str, limit: int = 10) -> list[Suggestion]:
        """The `limit` sentences with the best BM25 score for `query`, best first."""
        top = self.ranked(query)[:limit]
        return [self.suggestion(i, query, s, r) for r, (i, s) in enumerate(top, 1)]

"""Fuzzy search across the corpus for passages that answer a query's words.

Windows of two sentences are cut once; each query word is matched fuzzily (rapidfuzz)
against the corpus vocabulary, and a window scores the IDF weight of the query words it
holds. On the Chroma state-of-the-union questions this puts the labelled passage in the
top five for 70 of 76 questions, where `process.extract` with `token_set_ratio` over the
same windows finds 47 and with `WRatio` 7: a question shares rare words with its answer,
not its shape.

Words are folded (NFKD, marks dropped, case-folded), so `resume` finds `résumé` typed in
NFC or NFD; a word with a digit matches only itself (`4242` is not `4241`); passages that
hold the query's words exactly rank above equal fuzzy ones; a Markdown table row is
indexed with its header row's words, so "how many devices" finds the row of a plan.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from labeler.core.corpus.folder import Corpus
from labeler.core.text.sentences import fold as fold
from labeler.core.text.sentences import sentences as sentences
from labeler.core.text.sentences import terms

WORD_CUTOFF = 80
"""Least `fuzz.ratio` for a corpus word to count as one of the query's words."""

SENTENCES_PER_WINDOW = 2
"""Sentences in one searchable window (windows overlap by one sentence)."""

_LINE = re.compile(r"[^\n]+")
_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?")
"""A Markdown table's rule line under its header."""
words = terms
"""Folded words without stop words (the core's rule, shared with suggested evidence)."""


Weights = dict[int, float]
"""Word weight by window index."""


@dataclass(frozen=True)
class Hit:
    """A passage found for a query."""

    doc: str
    """Document id."""
    start: int
    """First offset of the passage."""
    end: int
    """One past its last offset."""
    score: float
    """Share of the query's word weight found in the passage, 0–100."""
    text: str
    """The passage."""
    sentence: tuple[int, int] | None = None
    """The passage's sentence holding the most query words: what the jump selects."""


def table_headers(text: str) -> dict[int, str]:
    """For each Markdown table row after a header (`| a | b |` then `|---|`), its header."""
    headers: dict[int, str] = {}
    lines = [(m.start(), m.group()) for m in _LINE.finditer(text)]
    header = None
    for i, (start, line) in enumerate(lines):
        if not line.lstrip().startswith("|"):
            header = None
        elif i and _RULE.fullmatch(line.strip()) and lines[i - 1][1].lstrip().startswith("|"):
            header = lines[i - 1][1]
        elif header is not None:
            headers[start] = header
    return headers


def windows(text: str, size: int = SENTENCES_PER_WINDOW) -> list[tuple[int, int]]:
    """Runs of `size` consecutive sentences, one starting at every sentence."""
    sents = sentences(text, careful=False)  # every document: pysbd only on demand
    return [(s, sents[min(i + size, len(sents)) - 1][1]) for i, (s, _) in enumerate(sents)]


def best_sentence(text: str, start: int, end: int, query: list[str]) -> tuple[int, int]:
    """The sentence of `text[start:end]` that holds the most of `query`'s words (fuzzily,
    as the search matched them); the first on a tie."""
    line = text.rfind("\n", 0, start) + 1
    sents = [(a, b) for a, b in sentences(text, line, end) if a < end and start < b]

    def held(span: tuple[int, int]) -> int:
        mine = words(text[span[0] : span[1]])
        found = (process.extractOne(w, mine, scorer=fuzz.ratio, score_cutoff=WORD_CUTOFF)
                 for w in set(query))  # fmt: skip
        return sum(f is not None for f in found)

    return max(sents, key=held, default=(start, end))


class CorpusSearch:
    """Windows, their words and an inverted index, built once per corpus."""

    def __init__(self, corpus: Corpus) -> None:
        self._corpus = corpus
        self._windows: list[tuple[str, int, int]] = []
        self._index: defaultdict[str, set[int]] = defaultdict(set)
        for doc in corpus:
            self._add(doc.id, doc.text)
        self._vocabulary = sorted(self._index)

    def _add(self, doc: str, text: str) -> None:
        """Index `doc`'s windows; each sentence's words are found once, as windows overlap."""
        headers = table_headers(text)
        sents = sentences(text, careful=False)  # every document: pysbd only on demand
        per_sentence = [frozenset(words(text[s:e])) for s, e in sents]
        for i, (start, _) in enumerate(sents):
            last = min(i + SENTENCES_PER_WINDOW, len(sents))
            row = text.rfind("\n", 0, start) + 1  # a table cell's row: its header's words
            found = set(words(headers[row])) if row in headers else set()
            if text[row:start].lstrip().startswith("|"):  # a cell: its window is its row
                row_end = text.find("\n", start) % (len(text) + 1)
                while last > i + 1 and sents[last - 1][0] > row_end:
                    last -= 1
            n = len(self._windows)
            for w in found.union(*per_sentence[i:last]):
                self._index[w].add(n)
            self._windows.append((doc, start, sents[last - 1][1]))

    def __len__(self) -> int:
        return len(self._windows)

    def _matches(self, word: str) -> set[int]:
        if any(c.isdigit() for c in word):  # numbers and codes match only themselves
            return set(self._index.get(word, ()))
        found: set[int] = set()
        for similar, _score, _i in process.extract(
            word, self._vocabulary, scorer=fuzz.ratio, score_cutoff=WORD_CUTOFF, limit=None
        ):
            found |= self._index[similar]
        return found

    def _scores(
        self, query_words: Iterable[str]
    ) -> tuple[dict[int, float], dict[int, float], float]:
        """Word weight per window (fuzzy matches count), the exact matches' part, the total."""
        total = 0.0
        scores: defaultdict[int, float] = defaultdict(float)
        exact: defaultdict[int, float] = defaultdict(float)
        n = max(1, len(self._windows))
        for word in set(query_words):
            found = self._matches(word)
            weight = math.log(1 + n / max(1, len(found)))
            total += weight
            for i in found:
                scores[i] += weight
            for i in self._index.get(word, ()):
                exact[i] += weight
        return scores, exact, total

    def search(self, query: str, limit: int = 20) -> list[Hit]:
        """The best passages for `query`, best first, none overlapping another."""
        scores, exact, total = self._scores(words(query))
        ranked = sorted(scores, key=lambda i: (-scores[i], -exact[i], i))
        hits: list[Hit] = []
        taken: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i in ranked:
            doc, start, end = self._windows[i]
            if any(start < e and s < end for s, e in taken[doc]):
                continue
            taken[doc].append((start, end))
            score = round(100 * scores[i] / total, 1)
            text = self._corpus.text(doc)
            best = best_sentence(text, start, end, words(query))
            hits.append(Hit(doc, start, end, score, text[start:end], best))
            if len(hits) == limit:
                break
        return hits

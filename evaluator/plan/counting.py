"""Token counts of many chunks, equal to the run's `TokenCounter` (text and prefix counted
apart), at a fraction of its cost (§17: a plan answers in seconds).

Each distinct text is counted once over every candidate. With a tokenizer that cuts each
word alone (WordPiece over BERT's pre-tokenizer, MiniLM's), each document is encoded once:
a range holds the tokens of the words inside it, and only the pieces of the words its two
edges cut are encoded apart. Any other tokenizer counts each range's text. Only the last
few documents' words are kept (chunks come document by document): memory does not grow
with the corpus (§6).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.tokenizers import HuggingFaceTokenizer, TokenizerAdapter, count_many
from labeler.core.progress import Advance

Words = Callable[[str], list[tuple[int, int, int]]]
"""A text's words as (start, end, tokens), in order."""
KEPT_DOCS = 4
"""Documents whose words are kept: a context candidate's units come right after its chunks."""
COUNT_BATCH = 4096
"""Texts encoded per call (a large corpus's prefixes all at once held their encodings)."""
KEPT_TEXTS = 100_000
"""Distinct short texts (the pieces edges cut, prefixes) whose counts are kept."""


@dataclass(frozen=True)
class _DocWords:
    starts: list[int]
    ends: list[int]
    tokens: list[int]
    """tokens[i]: tokens of words 0..i-1 (a running sum, one longer than the words)."""

    @classmethod
    def of(cls, words: list[tuple[int, int, int]]) -> _DocWords:
        return cls([w[0] for w in words], [w[1] for w in words],
                   [0, *accumulate(w[2] for w in words)])  # fmt: skip


def words_of(tokenizer: TokenizerAdapter) -> Words | None:
    """The tokenizer's words, when a range's tokens can be read from them; else None."""
    if isinstance(tokenizer, HuggingFaceTokenizer) and tokenizer.words_apart:
        return tokenizer.words
    return None


class TextTokens:
    """Tokens of chunks as a prompt holds them: text, then prefix, counted apart."""

    def __init__(self, tokenizer: TokenizerAdapter, texts: Mapping[str, str]) -> None:
        self._count_many: Callable[[list[str]], list[int]] = lambda many: count_many(
            tokenizer, many
        )
        self._words = words_of(tokenizer)
        self._texts = texts
        self._known: dict[str, int] = {}
        self._docs: OrderedDict[str, _DocWords] = OrderedDict()

    def of(self, texts: Sequence[str]) -> list[int]:
        """Each text's tokens; only texts not seen before reach the tokenizer."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._known]
        if not todo:
            return [self._known[t] for t in texts]
        fresh: dict[str, int] = {}
        for lo in range(0, len(todo), COUNT_BATCH):  # one batch's encodings in memory at a time
            part = todo[lo : lo + COUNT_BATCH]
            fresh.update(zip(part, self._count_many(part), strict=True))
        out = [fresh[t] if t in fresh else self._known[t] for t in texts]
        if len(self._known) + len(fresh) > KEPT_TEXTS:
            self._known.clear()  # bounded: the pieces of a large corpus are mostly distinct
        self._known.update(fresh)
        return out

    def of_table(self, table: ChunkTable) -> npt.NDArray[np.int64]:
        """Every chunk's tokens, prefix included, read from the table's columns."""
        docs = [table.docs[d] for d in table.doc_of.tolist()]
        bodies = self.of_ranges(docs, table.starts.tolist(), table.ends.tolist())
        return np.asarray(bodies, dtype=np.int64) + self._prefixes(len(table), table.prefixes)

    def of_tables(
        self, tables: Mapping[str, ChunkTable], advance: Advance | None = None
    ) -> dict[str, npt.NDArray[np.int64]]:
        """`of_table` of every table, document by document across the tables (each
        document's words read once, whatever the number of candidates); a table that
        shares its columns with another (candidates that cut alike) is counted once.
        `advance`d by one a document (`documents` says how many)."""
        distinct = {id(t.starts): t for t in tables.values()}
        found = {key: np.zeros(len(t), dtype=np.int64) for key, t in distinct.items()}
        for doc in sorted({d for t in distinct.values() for d in t.docs}):
            for key, t in distinct.items():
                r = t.doc_range(doc)
                if len(r):
                    found[key][r.start : r.stop] = self.of_ranges(
                        [doc] * len(r), t.starts[r.start : r.stop].tolist(),
                        t.ends[r.start : r.stop].tolist(),
                    )  # fmt: skip
            if advance is not None:
                advance(1)
        for key, t in distinct.items():
            found[key] += self._prefixes(len(t), t.prefixes)
        return {name: found[id(t.starts)] for name, t in tables.items()}

    def of_chunks(self, chunks: Sequence[Chunk]) -> npt.NDArray[np.int64]:
        """`of_table` for chunks in hand (the units a context candidate sends)."""
        bodies = self.of_ranges([c.doc for c in chunks], [c.start for c in chunks],
                                [c.end for c in chunks])  # fmt: skip
        prefixes = {i: c.prefix for i, c in enumerate(chunks) if c.prefix}
        return np.asarray(bodies, dtype=np.int64) + self._prefixes(len(chunks), prefixes)

    def of_ranges(
        self, docs: Sequence[str], starts: Sequence[int], ends: Sequence[int]
    ) -> list[int]:
        """Tokens of each text[start:end], exactly as the tokenizer counts that text."""
        if self._words is None:
            return self.of(
                [self._texts[d][a:b] for d, a, b in zip(docs, starts, ends, strict=True)]
            )
        inner: list[int] = []
        pieces: list[list[str]] = []
        for doc, a, b in zip(docs, starts, ends, strict=True):
            n, cut = self._inside(doc, a, b)
            inner.append(n)
            pieces.append(cut)
        counted = iter(self.of([p for cut in pieces for p in cut]))
        return [n + sum(next(counted) for _ in cut) for n, cut in zip(inner, pieces, strict=True)]

    def _inside(self, doc: str, a: int, b: int) -> tuple[int, list[str]]:
        """Tokens of the words wholly inside [a, b), and the pieces of the words its edges
        cut (each to be counted alone: a word is cut into tokens apart from its neighbours)."""
        words, text = self._doc(doc), self._texts[doc]
        first = bisect_left(words.starts, a)  # the first word starting in the range
        last = bisect_right(words.ends, b)  # words before it end inside the range
        head = first > 0 and words.ends[first - 1] > a  # a word begins before a, ends after
        tail = last < len(words.starts) and words.starts[last] < b
        if head and tail and first - 1 == last:
            return 0, [text[a:b]]  # both edges in one word
        n = words.tokens[last] - words.tokens[first] if last > first else 0
        cut = [text[a : min(b, words.ends[first - 1])]] if head else []
        return n, cut + ([text[max(a, words.starts[last]) : b]] if tail else [])

    def _doc(self, doc: str) -> _DocWords:
        found = self._docs.get(doc)
        if found is None:
            assert self._words is not None
            found = self._docs[doc] = _DocWords.of(self._words(self._texts[doc]))
            while len(self._docs) > KEPT_DOCS:
                self._docs.popitem(last=False)
        else:
            self._docs.move_to_end(doc)
        return found

    def _prefixes(self, n: int, prefixes: Mapping[int, str]) -> npt.NDArray[np.int64]:
        out = np.zeros(n, dtype=np.int64)
        if prefixes:
            out[list(prefixes)] = self.of(list(prefixes.values()))
        return out

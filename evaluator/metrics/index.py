"""A candidate's chunks, grouped by document and sorted once, for range look-ups.

Oracle recall and precision_omega ask "which chunks touch this span?" for every query;
bisecting sorted starts and a running maximum of ends answers that without a scan, even
for splitters whose chunks nest. Token counts are cached per chunk for the same reason.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk


@dataclass(frozen=True)
class _DocChunks:
    chunks: tuple[Chunk, ...]
    """The document's chunks by (start, end)."""
    starts: tuple[int, ...]
    """Their starts, for bisect."""
    reach: tuple[int, ...]
    """reach[i] = max end of chunks[0..i]: nondecreasing, so bisectable too."""
    prefixed: tuple[Chunk, ...] = ()
    """The chunks whose prefix has source offsets (§17), scanned apart: few per document."""

    @classmethod
    def of(cls, chunks: Iterable[Chunk]) -> _DocChunks:
        ordered = tuple(sorted(chunks, key=lambda c: (c.start, c.end)))
        reach = tuple(accumulate((c.end for c in ordered), max))
        prefixed = tuple(c for c in ordered if c.prefix_source)
        return cls(ordered, tuple(c.start for c in ordered), reach, prefixed)

    def touching(self, start: int, end: int) -> list[Chunk]:
        """Chunks whose closed range, or a prefix source range, meets [start, end]."""
        first = bisect_left(self.reach, start)
        last = bisect_right(self.starts, end)
        found = [c for c in self.chunks[first:last] if c.end >= start]
        if not self.prefixed:
            return found
        seen = {id(c) for c in found}
        extra = [c for c in self.prefixed if id(c) not in seen and _meets(c, start, end)]
        return sorted(found + extra, key=lambda c: (c.start, c.end)) if extra else found


def _meets(chunk: Chunk, start: int, end: int) -> bool:
    return any(a <= end and b >= start for a, b in chunk.prefix_source)


@dataclass(frozen=True)
class ChunkIndex:
    """Every chunk of one candidate, by document."""

    docs: Mapping[str, _DocChunks]
    """Document id -> its chunks, sorted."""

    @classmethod
    def build(cls, chunks: Iterable[Chunk]) -> ChunkIndex:
        by_doc: defaultdict[str, list[Chunk]] = defaultdict(list)
        for chunk in chunks:
            by_doc[chunk.doc].append(chunk)
        return cls({doc: _DocChunks.of(cs) for doc, cs in by_doc.items()})

    def touching(self, doc: str, start: int, end: int) -> list[Chunk]:
        """Chunks of `doc` that intersect or touch [start, end], in offset order."""
        found = self.docs.get(doc)
        return found.touching(start, end) if found is not None else []

    def chunks(self) -> list[Chunk]:
        return [c for d in self.docs.values() for c in d.chunks]


Tokens = npt.NDArray[np.int64]
"""Each chunk's tokens of one whole index, in its order."""
_PRIME_BATCH = 1024
"""Chunks counted per batched tokenizer call."""


@dataclass
class TokenCounter:
    """Tokens of a chunk as it goes into a prompt: its prefix, then its text.

    The prefix and the text are counted apart and summed, so the count does not depend
    on how an embedder joins them. Counts are cached: a chunk recurs across many queries.
    """

    count_tokens: Callable[[str], int]
    """The settings' tokenizer."""
    texts: Mapping[str, str]
    """Canonical text of every document."""
    _cache: dict[str, int] = field(default_factory=dict, repr=False)
    """Chunk id -> tokens. Ids fingerprint corpus, offsets and splitter, prefix included."""
    _tables: list[tuple[Sequence[Chunk], Tokens]] = field(default_factory=list, repr=False)
    """Whole indexes counted already (the plan's counts, §17), each with its counts."""

    def know(self, chunks: Sequence[Chunk], tokens: Tokens) -> None:
        """Every chunk of `chunks` already counted (`tokens[i]` for `chunks[i]`): `counts` of
        that very sequence reads them instead of encoding again."""
        self._tables.append((chunks, tokens))

    def known(self, chunks: Sequence[Chunk]) -> Tokens | None:
        """The counts `know` was given for this very sequence, or None."""
        return next((t for c, t in self._tables if c is chunks), None)

    def remember(self, found: Mapping[str, int]) -> None:
        """Chunk id -> tokens counted elsewhere (read from a known index's counts)."""
        self._cache.update(found)

    def __call__(self, chunk: Chunk) -> int:
        cached = self._cache.get(chunk.id)
        if cached is None:
            body = self.count_tokens(self.texts[chunk.doc][chunk.start : chunk.end])
            cached = body + (self.count_tokens(chunk.prefix) if chunk.prefix else 0)
            self._cache[chunk.id] = cached
        return cached

    def prime(self, chunks: Sequence[Chunk], count_many: Callable[[list[str]], list[int]]) -> None:
        """Count every chunk not counted yet in batched calls (one call per chunk is the
        slow part of a large corpus's statistics); the counts equal `__call__`'s."""
        for _ in self.counts(chunks, count_many):
            pass

    def counts(
        self,
        chunks: Sequence[Chunk],
        count_many: Callable[[list[str]], list[int]],
        keep: Container[str] | None = None,
    ) -> Iterator[int]:
        """Each chunk's tokens in order, counted in batched calls, once per chunk; a count
        is kept only for chunks whose id is in `keep` (all when None), so a whole index
        is counted with one batch of texts and counts in memory."""
        known = self.known(chunks)
        if known is not None:
            yield from (int(n) for n in known)
            return
        for lo in range(0, len(chunks), _PRIME_BATCH):
            part = chunks[lo : lo + _PRIME_BATCH]
            todo = [c for c in part if c.id not in self._cache]
            bodies = count_many([self.texts[c.doc][c.start : c.end] for c in todo])
            extra = iter(count_many([c.prefix for c in todo if c.prefix]))
            fresh = {c.id: body + (next(extra) if c.prefix else 0)
                     for c, body in zip(todo, bodies, strict=True)}  # fmt: skip
            for chunk in part:
                found = self._cache.get(chunk.id)
                if found is None:
                    found = fresh[chunk.id]
                    if keep is None or chunk.id in keep:
                        self._cache[chunk.id] = found
                yield found

    def total(self, chunks: Sequence[Chunk]) -> int:
        return sum(self(c) for c in chunks)


def as_counter(
    count_tokens: Callable[[str], int] | TokenCounter, texts: Mapping[str, str]
) -> TokenCounter:
    """Reuse a TokenCounter (and its cache) when given one, else wrap the tokenizer."""
    if isinstance(count_tokens, TokenCounter):
        return count_tokens
    return TokenCounter(count_tokens, texts)

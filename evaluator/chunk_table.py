"""A candidate's chunks held as columns, so a run's memory does not grow by a Python object
per chunk (§6: bounded by the batch, not the corpus).

A `ChunkTable` is a `Sequence[Chunk]`: document index, start and end in numpy arrays, a
prefix only where a chunk has one, and each `Chunk` (its id hashed then) made when asked
for. Chunks are in document-id order, then offset order, as `chunk_corpus` returns them.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk, Chunks, chunk_id


class Cut(Protocol):
    """What a splitter's piece gives a table (`evaluator.chunking.Piece`)."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def prefix(self) -> str: ...
    @property
    def prefix_source(self) -> tuple[tuple[int, int], ...]: ...


class ChunkTable(Chunks):
    """Every chunk of one candidate over one corpus."""

    def __init__(
        self,
        corpus_hash: str,
        fingerprint: str,
        docs: Sequence[str],
        doc_of: npt.NDArray[np.int32],
        starts: npt.NDArray[np.int64],
        ends: npt.NDArray[np.int64],
        prefixes: dict[int, str],
        sources: dict[int, tuple[tuple[int, int], ...]] | None = None,
    ) -> None:
        self.corpus_hash, self.fingerprint = corpus_hash, fingerprint
        """What chunk ids hash (design §5)."""
        self.docs = tuple(docs)
        """Document ids that have chunks, in order; `doc_of` indexes them."""
        self.doc_of, self.starts, self.ends = doc_of, starts, ends
        self.prefixes = prefixes
        """Chunk index -> its prefix, for the chunks that have one."""
        self.sources = sources or {}
        """Chunk index -> where its prefix was copied from (§17), for the chunks that say."""

    @classmethod
    def build(
        cls, corpus_hash: str, fingerprint: str, pieces: Iterable[tuple[str, Sequence[Cut]]]
    ) -> ChunkTable:
        """From each document's pieces, documents in id order (`split_text`'s output)."""
        docs: list[str] = []
        doc_of, starts, ends = array("i"), array("q"), array("q")
        prefixes: dict[int, str] = {}
        sources: dict[int, tuple[tuple[int, int], ...]] = {}
        shared: dict[str, str] = {}  # one string per distinct heading breadcrumb
        for doc, cut in pieces:
            if not cut:
                continue
            docs.append(doc)
            for p in cut:
                if p.prefix:
                    prefixes[len(starts)] = shared.setdefault(p.prefix, p.prefix)
                if p.prefix_source:
                    sources[len(starts)] = p.prefix_source
                doc_of.append(len(docs) - 1)
                starts.append(p.start)
                ends.append(p.end)
        return cls(
            corpus_hash, fingerprint, docs, np.frombuffer(doc_of, dtype=np.int32),
            np.frombuffer(starts, dtype=np.int64), np.frombuffer(ends, dtype=np.int64),
            prefixes, sources,
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self.starts)

    def at(self, i: int) -> Chunk:
        doc, start, end = self.docs[self.doc_of[i]], int(self.starts[i]), int(self.ends[i])
        cid = chunk_id(self.corpus_hash, doc, start, end, self.fingerprint)
        return Chunk(cid, doc, start, end, self.prefixes.get(i, ""), self.sources.get(i, ()))

    def __iter__(self) -> Iterator[Chunk]:
        return (self.at(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def doc_range(self, doc: str) -> range:
        """Indexes of `doc`'s chunks (empty when it has none)."""
        d = self._doc_number.get(doc)
        if d is None:
            return range(0)
        bounds: list[int] | None = getattr(self, "_bounds", None)
        if bounds is None:  # where each document's chunks begin, found once
            found = np.searchsorted(self.doc_of, np.arange(len(self.docs) + 1))
            bounds = self._bounds = [int(b) for b in found]
        return range(bounds[d], bounds[d + 1])

    @property
    def _doc_number(self) -> dict[str, int]:
        numbers: dict[str, int] | None = getattr(self, "_numbers", None)
        if numbers is None:
            numbers = {doc: n for n, doc in enumerate(self.docs)}
            self._numbers = numbers
        return numbers

    def find(self, doc: str, start: int, end: int) -> int | None:
        """The index of the chunk at (doc, start, end), found in the columns, or None."""
        r = self.doc_range(doc)
        lo = r.start + int(np.searchsorted(self.starts[r.start : r.stop], start))
        while lo < r.stop and self.starts[lo] == start:
            if self.ends[lo] == end:
                return lo
            lo += 1
        return None

    def find_many(
        self, docs: Sequence[str], starts: Sequence[int], ends: Sequence[int]
    ) -> npt.NDArray[np.int64]:
        """`find` for many at once: each (doc, start, end)'s chunk index, or -1 (one search
        of the columns per call, not a search and a chunk per probe)."""
        number = self._doc_number
        d = np.fromiter((number.get(x, -1) for x in docs), dtype=np.int64, count=len(docs))
        s, e = np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
        # sorted, as the table is by document then start (made per call, not kept: 8 bytes
        # a chunk for a millisecond at 300,000 chunks)
        keys = (self.doc_of.astype(np.int64) << 32) | self.starts
        out = np.full(len(d), -1, dtype=np.int64)
        if not len(keys) or not len(d):
            return out
        valid = (d >= 0) & (s >= 0) & (s < 1 << 32)
        q = np.where(valid, (d << 32) | np.where(valid, s, 0), -1)
        at = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
        hit = valid & (keys[at] == q)
        exact = hit & (self.ends[at] == e)
        out[exact] = at[exact]
        for i in np.flatnonzero(hit & ~exact):  # chunks sharing a start: not the first one
            found = self.find(docs[int(i)], int(s[i]), int(e[i]))
            out[i] = -1 if found is None else found
        return out

    def of_docs(self, docs: Iterable[str]) -> list[Chunk]:
        """The chunks of these documents, in table order."""
        return [self.at(i) for doc in sorted(set(docs)) for i in self.doc_range(doc)]

    def chars(self) -> int:
        """Code points indexed: the sum of chunk lengths."""
        return int((self.ends - self.starts).sum())

    def first_repeat(self) -> int | None:
        """The index of a chunk with the same document, start and end as another (it would
        have the same id), or None."""
        order = np.lexsort((self.ends, self.starts, self.doc_of))
        keys = np.stack([self.doc_of[order], self.starts[order], self.ends[order]])
        same = np.flatnonzero((np.diff(keys, axis=1) == 0).all(axis=0))
        return int(order[same[0] + 1]) if len(same) else None

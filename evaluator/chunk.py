"""Chunks as plain values: where a splitter cut a document, by its own arithmetic (§5).

A chunk is a range of code points in the canonical text; it may carry a `prefix` (a
heading breadcrumb or table header) that is embedded with it but lies outside its range.
The prefix is a copy of text at known offsets (`prefix_source`), so evidence it carries
is matched and covered like the chunk's own text (§17).
"""

from __future__ import annotations

import hashlib
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload


@dataclass(frozen=True)
class Chunk:
    id: str
    """First 16 hex of sha256 over corpus hash, doc, start, end and splitter fingerprint."""
    doc: str
    """Document id."""
    start: int
    """First code point, inclusive."""
    end: int
    """End, exclusive."""
    prefix: str = ""
    """Text embedded before the chunk but not part of its offsets."""
    prefix_source: tuple[tuple[int, int], ...] = ()
    """Where the prefix's text lies in the same document: (start, end) ranges, in order."""

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def ranges(self) -> tuple[tuple[int, int], ...]:
        """Every range of source text the chunk carries: its own, then its prefix's."""
        return ((self.start, self.end), *self.prefix_source)


def chunk_id(corpus_hash: str, doc: str, start: int, end: int, fingerprint: str) -> str:
    payload = "\x1f".join([corpus_hash, doc, str(start), str(end), fingerprint])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class Chunks(Sequence[Chunk]):
    """A sequence whose chunks are made when asked for (`at`), not held: a chunk table's
    rows, some chunks of another sequence by index."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def at(self, i: int) -> Chunk:
        """The chunk at `i`, where 0 <= i < len(self)."""

    @overload
    def __getitem__(self, i: int) -> Chunk: ...
    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...
    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
        if isinstance(i, slice):
            return [self.at(j) for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.at(i)

"""Encodings a tokenizer keeps in memory, and a range's tokens read from its document's (§17).

The candidates of one tokenizer, a plan's counts and its units all ask for the same
documents, and a parent's children ask for a range of one: each document is encoded once.
For a tokenizer that cuts each word alone (`words_apart`), a range's tokens are the
document's tokens of the words wholly inside it and the tokens of the pieces its two edges
cut, each piece encoded alone, exactly as the range's own text is encoded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any

import numpy as np
import numpy.typing as npt

Encoded = list[tuple[int, Any]]
"""(segment start, `tokenizers.Encoding`) for each segment of a text."""
Offsets = list[tuple[int, int]]
"""(start, end) code points of each token, in order."""
NEWEST = 4
"""Kept texts looked into for a range: a document's parents are cut right after it."""


@dataclass(frozen=True)
class Layout:
    """A kept text's tokens with the span of the word each belongs to, and its words."""

    offsets: Offsets
    """Each token's (start, end)."""
    word_starts: npt.NDArray[np.int64]
    """Per token, where its word starts (never decreasing)."""
    word_ends: npt.NDArray[np.int64]
    """Per token, where its word ends (never decreasing)."""
    words: list[tuple[int, int, int]]
    """Each word's (start, end, tokens), in order."""

    @classmethod
    def of(cls, encoded: Encoded) -> Layout:
        """A word's tokens are consecutive (each word is cut alone), so words are the runs
        of one word id: read in array operations, not token by token (§17: seconds)."""
        offsets: Offsets = []
        parts: list[tuple[npt.NDArray[np.int64], ...]] = []
        for base, encoding in encoded:
            found = list(encoding.offsets)
            offsets.extend((base + s, base + e) for s, e in found)
            parts.append(_words(encoding.word_ids, found, base))
        ws, we, n = (np.concatenate([p[i] for p in parts]) for i in range(3))
        words = list(zip(ws.tolist(), we.tolist(), n.tolist(), strict=True))
        return cls(offsets, np.repeat(ws, n), np.repeat(we, n), words)

    def within(self, text: str, a: int, b: int, alone: Callable[[str], Offsets]) -> Offsets:
        """The offsets of text[a:b]'s tokens, relative to a (`alone`: a piece's own)."""
        first = int(np.searchsorted(self.word_starts, a, "left"))  # its first whole word's
        last = int(np.searchsorted(self.word_ends, b, "right"))  # tokens before: words ending in it
        head = first > 0 and self.word_ends[first - 1] > a  # a word begins before a, ends after
        tail = last < len(self.offsets) and self.word_starts[last] < b
        if tail and self.word_starts[last] < a:
            return alone(text[a:b])  # both edges in one word
        out = alone(text[a : min(b, int(self.word_ends[first - 1]))]) if head else []
        out.extend((s - a, e - a) for s, e in self.offsets[first:last] if last > first)
        if tail:
            at = max(a, int(self.word_starts[last]))
            out.extend((at - a + s, at - a + e) for s, e in alone(text[at:b]))
        return out


def _words(ids: list[int | None], offsets: Offsets, base: int) -> tuple[npt.NDArray[np.int64], ...]:
    """(starts, ends, tokens) of the runs of one word id in a segment."""
    if not ids:
        return (np.zeros(0, np.int64),) * 3
    word = np.asarray([-1 if w is None else w for w in ids], dtype=np.int64)
    spans = np.asarray(offsets, dtype=np.int64).reshape(-1, 2) + base
    runs = np.flatnonzero(np.r_[True, word[1:] != word[:-1]])
    starts = np.minimum.reduceat(spans[:, 0], runs)
    ends = np.maximum.reduceat(spans[:, 1], runs)
    return starts, ends, np.diff(np.r_[runs, len(word)])


@dataclass
class _Entry:
    encoded: Encoded
    layout: Layout | None = None


class Kept:
    """Recent texts' encodings, newest last, up to `limit()` characters in all."""

    def __init__(self, limit: Callable[[], int]) -> None:
        self._limit = limit
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self.chars = 0
        """Characters of the texts kept."""
        self._lock = threading.Lock()

    def __iter__(self) -> Any:
        return iter(list(self._entries))

    def get(self, text: str) -> Encoded | None:
        with self._lock:
            entry = self._entries.get(text)
            if entry is None:
                return None
            self._entries.move_to_end(text)
            return entry.encoded

    def put(self, text: str, encoded: Encoded) -> None:
        with self._lock:
            if text not in self._entries:
                self._entries[text] = _Entry(encoded)
                self.chars += len(text)
            while self.chars > self._limit() and self._entries:
                self.chars -= len(self._entries.popitem(last=False)[0])

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.chars = 0

    def layout(self, text: str, encoded: Encoded) -> Layout:
        """The layout of `text` (encoded as `encoded`), kept with it when it is kept."""
        with self._lock:
            entry = self._entries.get(text)
        if entry is None:
            return Layout.of(encoded)
        if entry.layout is None:
            entry.layout = Layout.of(entry.encoded)
        return entry.layout

    def holder(self, text: str) -> tuple[str, int, Layout] | None:
        """A recent kept text that holds `text`, where, and its layout; None when none does."""
        with self._lock:
            recent = list(islice(reversed(self._entries.items()), NEWEST))
        for whole, entry in recent:
            at = whole.find(text) if len(whole) > len(text) else -1
            if at >= 0:
                if entry.layout is None:
                    entry.layout = Layout.of(entry.encoded)
                return whole, at, entry.layout
        return None

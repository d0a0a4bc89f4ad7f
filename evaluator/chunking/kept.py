"""Encodings a tokenizer keeps in memory, and a range's tokens read from its document's (§17).

The candidates of one tokenizer, a plan's counts and its units all ask for the same
documents, and a parent's children ask for a range of one: each document is encoded once.
For a tokenizer that cuts each word alone (`words_apart`), a range's tokens are the
document's tokens of the words wholly inside it and the tokens of the pieces its two edges
cut, each piece encoded alone, exactly as the range's own text is encoded.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any

Encoded = list[tuple[int, Any]]
"""(segment start, `tokenizers.Encoding`) for each segment of a text."""
Offsets = list[tuple[int, int]]
"""(start, end) code points of each token, in order."""
NEWEST = 4
"""Kept texts looked into for a range: a document's parents are cut right after it."""


@dataclass(frozen=True)
class Layout:
    """A kept text's tokens with the span of the word each belongs to."""

    offsets: Offsets
    """Each token's (start, end)."""
    word_starts: list[int]
    """Per token, where its word starts (never decreasing)."""
    word_ends: list[int]
    """Per token, where its word ends (never decreasing)."""

    @classmethod
    def of(cls, encoded: Encoded) -> Layout:
        offsets: Offsets = []
        starts: list[int] = []
        ends: list[int] = []
        for base, encoding in encoded:
            spans: dict[Any, list[int]] = {}
            for word, (s, e) in zip(encoding.word_ids, encoding.offsets, strict=True):
                span = spans.setdefault(word, [s, e])
                span[0], span[1] = min(span[0], s), max(span[1], e)
            for word, (s, e) in zip(encoding.word_ids, encoding.offsets, strict=True):
                offsets.append((base + s, base + e))
                starts.append(base + spans[word][0])
                ends.append(base + spans[word][1])
        return cls(offsets, starts, ends)

    def within(self, text: str, a: int, b: int, alone: Callable[[str], Offsets]) -> Offsets:
        """The offsets of text[a:b]'s tokens, relative to a (`alone`: a piece's own)."""
        first = bisect_left(self.word_starts, a)  # the first token whose word starts in it
        last = bisect_right(self.word_ends, b)  # tokens before it: words ending in it
        head = first > 0 and self.word_ends[first - 1] > a  # a word begins before a, ends after
        tail = last < len(self.offsets) and self.word_starts[last] < b
        if tail and self.word_starts[last] < a:
            return alone(text[a:b])  # both edges in one word
        out = alone(text[a : min(b, self.word_ends[first - 1])]) if head else []
        out.extend((s - a, e - a) for s, e in self.offsets[first:last] if last > first)
        if tail:
            at = max(a, self.word_starts[last])
            out.extend((at - a + s, at - a + e) for s, e in alone(text[at:b]))
        return out


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

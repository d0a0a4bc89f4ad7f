"""Units a size is counted in: where each unit starts in the text.

Every splitter measures a range by counting unit starts inside it, so measures add up
across adjacent ranges and the whitespace between units counts for nothing. Characters
need no list at all; words and tokens keep a sorted list of starts and use bisect.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from functools import lru_cache

from evaluator.chunking.tokenizers import load_tokenizer

_WORD = re.compile(r"\S+")


class Units:
    """Characters: unit i starts at i."""

    def __init__(self, n: int) -> None:
        self.n = n
        """Number of units."""

    def __len__(self) -> int:
        return self.n

    def start(self, i: int) -> int:
        """Code point where unit i starts."""
        return i

    def count(self, start: int, end: int) -> int:
        """Units that start in [start, end)."""
        return end - start

    def index(self, pos: int) -> int:
        """Index of the first unit starting at or after `pos`."""
        return min(pos, self.n)

    def starts_in(self, start: int, end: int) -> range | list[int]:
        return range(start, end)


class ListedUnits(Units):
    """Units (words, tokens) with explicit, strictly increasing start positions."""

    def __init__(self, starts: list[int]) -> None:
        super().__init__(len(starts))
        self.starts = starts
        """Code point where each unit starts."""

    def start(self, i: int) -> int:
        return self.starts[i]

    def count(self, start: int, end: int) -> int:
        return bisect_left(self.starts, end) - bisect_left(self.starts, start)

    def index(self, pos: int) -> int:
        return bisect_left(self.starts, pos)

    def starts_in(self, start: int, end: int) -> range | list[int]:
        return self.starts[bisect_left(self.starts, start) : bisect_left(self.starts, end)]


def word_starts(text: str) -> list[int]:
    return [m.start() for m in _WORD.finditer(text)]


def increasing_starts(spans: Iterable[tuple[int, int]]) -> list[int]:
    """Token starts with repeats dropped: tokens from one character count as one unit."""
    out: list[int] = []
    last = -1
    for start, end in spans:
        if start > last and end > start:
            out.append(start)
            last = start
    return out


@lru_cache(maxsize=32)
def units_for(unit: str, text: str, tokenizer: str | None) -> Units:
    """Measure `text` in `unit` (chars | words | tokens). The last few are kept: candidates
    that share a unit cut each document once, and a plan asks again for the same ones."""
    if unit == "chars":
        return Units(len(text))
    if unit == "words":
        return ListedUnits(word_starts(text))
    if unit == "tokens" and tokenizer:
        return ListedUnits(increasing_starts(load_tokenizer(tokenizer).offsets(text)))
    raise ValueError(f"unknown unit {unit!r}")

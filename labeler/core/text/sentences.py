"""Sentences and folded words of canonical text: the units that search and suggestions share.

One splitter and one word rule for every feature that looks for passages (corpus search,
suggested evidence), so a sentence found by one is the sentence found by the other. A line
is split after a terminator (and its closing quotes or brackets) followed by white space.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

import regex

_LINE = re.compile(r"[^\n]+")
_GAP = re.compile(r"[.!?][\"')\]\u201d\u2019]*\s+")
_WORD = regex.compile(r"[\p{L}\p{N}\p{M}]+")
"""A run of letters, digits and their combining marks, in canonical (NFC) text."""
_ALNUM = regex.compile(r"[\p{L}\p{N}]+")
STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from"}
    | {"has", "have", "how", "i", "in", "is", "it", "its", "of", "on", "or", "that", "the"}
    | {"their", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who"}
    | {"why", "with", "you", "your"}
)
"""Words too common to say where an answer is."""


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence offsets: lines split after a terminator followed by white space."""
    out: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        begin = line.start()
        for gap in _GAP.finditer(text, line.start(), line.end()):
            out.append((begin, gap.start() + len(gap.group().rstrip())))
            begin = gap.end()
        if begin < line.end():
            out.append((begin, line.end()))
    return out


def fold(text: str) -> str:
    """Text without accents or case: NFKD, combining marks dropped, case-folded."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def word_terms(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int, str]]:
    """Each word of `text[start:end]` as (start, end, folded term), stop words left out.

    Offsets are those of the word in `text`; a word that folds to several terms (`½`)
    yields each of them with the word's offsets.
    """
    for m in _WORD.finditer(text, start, len(text) if end is None else end):
        for term in _folded(m.group()):
            yield m.start(), m.end(), term


@lru_cache(maxsize=1 << 16)
def _folded(word: str) -> tuple[str, ...]:
    """A word's terms (a corpus repeats its words, so each is folded once)."""
    found = [word.lower()] if word.isascii() else _ALNUM.findall(fold(word))
    return tuple(t for t in found if t not in STOPWORDS)


def terms(text: str) -> list[str]:
    """The folded words of `text` without stop words, in order."""
    return [t for word in _WORD.findall(text) for t in _folded(word)]

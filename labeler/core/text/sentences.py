"""Sentences and folded words of canonical text: the units that search and suggestions share.

One splitter and one word rule for every feature that looks for passages (corpus search,
suggested evidence, the view's sentence snap), so a sentence found by one is the sentence
found by the others. A paragraph (hard-wrapped lines) is split after a terminator (and its
closing quotes or brackets) followed by white space; a blank line, a heading, a list item,
a quote, a table row or a code line starts afresh, its marker left out of the sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

import regex

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
"""A line with its line break (the last may have none); a search may start mid-line."""
_GAP = re.compile(r"[.!?][\"')\]\u201d\u2019]*\s+")
_MARKER = re.compile(r"[ \t]*(?:#{1,6}[ \t]+|[-*+\u2022][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]*)")
"""A heading's marks, a list item's bullet or number, a quote's `>`: left out of a sentence."""
_ALONE = re.compile(r"[ \t]*(?:#{1,6}[ \t]|\||```|~~~)")
"""Lines that are a unit of their own, never joined to the next: headings, table rows, fences."""
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


def sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence offsets in `text[start:end]` (`start` at a line's start): paragraphs split
    after a terminator followed by white space, markers and edge white space left out."""
    out: list[tuple[int, int]] = []
    for begin, stop in _units(text, start, len(text) if end is None else end):
        for gap in _GAP.finditer(text, begin, stop):
            out.append((begin, gap.start() + len(gap.group().rstrip())))
            begin = gap.end()
        if begin < stop:
            out.append((begin, stop))
    return out


def _units(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Paragraphs and one-line units (headings, items, rows, code), without edge blanks."""
    unit: tuple[int, int] | None = None  # the paragraph being joined
    code = False
    for line in _LINE.finditer(text, start, end):
        a, b = _content(text, *line.span())  # the break is white space: left out
        fence = text.startswith(("```", "~~~"), a, b)
        alone = code or bool(_ALONE.match(text, line.start(), b))
        lead = None if code else _MARKER.match(text, *line.span())
        if unit and (a == b or fence or alone or lead):
            yield unit
            unit = None
        code = code != fence
        if a == b or fence:
            continue
        a, b = _content(text, lead.end(), max(b, lead.end())) if lead else (a, b)
        if a == b:
            continue
        unit = (unit[0] if unit else a, b)
        if alone:
            yield unit
            unit = None
    if unit:
        yield unit


def _content(text: str, a: int, b: int) -> tuple[int, int]:
    """`text[a:b]` without white space at its edges (empty: a == b)."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def sentence_around(text: str, start: int, end: int, window: int) -> tuple[int, int]:
    """The whole sentences that `text[start:end]` touches (looked for within `window` code
    points); an empty range is the sentence it is in, or the next on its line; none: as is."""
    lo = max(0, start - window)
    if lo:
        nl = text.find("\n", lo, start)
        lo = nl + 1 if nl >= 0 else lo
    found = sentences(text, lo, min(len(text), end + window))
    if start == end:
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        inside = [s for s in found if s[0] <= start < s[1] or start < s[0] < line_end]
        return inside[0] if inside else (start, end)
    touched = [s for s in found if s[0] < end and start < s[1]]
    return (touched[0][0], touched[-1][1]) if touched else (start, end)


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

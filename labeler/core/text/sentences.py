"""Sentences and folded words of canonical text: the units that search and suggestions share.

One splitter and one word rule for every feature that looks for passages (corpus search,
suggested evidence, the view's sentence snap), so a sentence found by one is the sentence
found by the others. Text is cut into units: a paragraph (hard-wrapped lines), a list item,
a quote (its `>` lines joined), a heading, a table cell, a code comment (its lines joined)
or a code line; a unit's markers are left out (blanked inside it). `segment` then breaks
each unit into sentences, abbreviations and quoted questions kept whole.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

import regex

from labeler.core.text.segment import breaks

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
"""A line with its line break (the last may have none); a search may start mid-line."""
_MARKER = re.compile(r"[ \t]*(?:#{1,6}[ \t]+|[-*+\u2022][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]*)")
"""A heading's marks, a list item's bullet or number, a quote's `>`: left out of a sentence."""
_QUOTE = re.compile(r"[ \t]*>[ \t]*")
"""A quote line's marker: the lines of one quote are one unit."""
_HEADING = re.compile(r"[ \t]*#{1,6}[ \t]")
"""A heading: a unit of its own."""
_ROW = re.compile(r"[ \t]*\|")
"""A table row: each of its cells is a unit of its own."""
_CELL = re.compile(r"(?:\\.|[^|\\])+")
"""A cell's text between pipes (an escaped pipe stays in it)."""
_RULE = re.compile(r"[ \t]*:?-+:?[ \t]*")
"""A cell of the header rule (`---`, `:--:`): no text."""
_COMMENT = re.compile(r"[ \t]*(?:#+|//+|--|;+|%+|/\*+|\*+/?|\*)(?=[ \t]|$)[ \t]*")
"""A code comment line's marker (`#`, `//`, `--`, `;`, `%`, `/*`, `*`): a comment's lines
are one unit, so a sentence wrapped over them is whole."""
Unit = tuple[int, int, tuple[tuple[int, int], ...]]
"""A unit's start and end, and the markers inside it, blanked before it is broken."""
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


def sentences(
    text: str, start: int = 0, end: int | None = None, *, careful: bool = True
) -> list[tuple[int, int]]:
    """Sentence offsets in `text[start:end]` (`start` at a line's start), markers and edge
    white space left out. `careful=False` for a whole corpus: doubtful breaks decided by an
    abbreviation list rather than pysbd (about 20 s a MB)."""
    out: list[tuple[int, int]] = []
    for a, b, blanks in _units(text, start, len(text) if end is None else end):
        unit = text[a:b]
        for x, y in blanks:
            unit = unit[: x - a] + " " * (y - x) + unit[y - a :]
        lead = len(unit) - len(unit.lstrip())
        found = breaks(unit, careful=careful)
        out.extend((a + x, a + y) for x, y in found if y > max(x, lead))
    return out


def _units(text: str, start: int, end: int) -> Iterator[Unit]:
    """Paragraphs, items, quotes, headings, cells, comments and code lines, in order."""
    unit: Unit | None = None  # the paragraph, quote or comment being joined
    kind = ""
    code = False
    for line in _LINE.finditer(text, start, end):
        s, e = line.span()
        a, b = _content(text, s, e)  # the break is white space: left out
        fence = text.startswith(("```", "~~~"), a, b)
        if a == b or fence:
            code = code != fence
            yield from _flush(unit)
            unit, kind = None, ""
            continue
        lead, now = _lead(text, s, e, b, code)
        if (
            lead is None
            or now != kind
            or now not in ("p", "quote", "comment")
            or (now == "p" and lead > s)
        ):
            yield from _flush(unit)
            unit, kind = None, ""
        if now == "row":
            yield from _cells(text, s, b)
            continue
        if now in ("line", "heading") or lead is None:
            if lead is not None and _content(text, lead, b)[0] < b:
                yield (_content(text, lead, b)[0], b, ())
            continue
        if unit is None:
            first = _content(text, lead, b)[0]
            if first < b:
                unit, kind = (first, b, ()), now
        else:
            blanks = unit[2] + (((s, lead),) if lead > s and now != "p" else ())
            unit = (unit[0], b, blanks)
    yield from _flush(unit)


def _flush(unit: Unit | None) -> Iterator[Unit]:
    if unit is not None:
        yield unit


def _lead(text: str, s: int, e: int, b: int, code: bool) -> tuple[int | None, str]:
    """Where a line's text starts after its marker, and its kind: `p` (paragraph text or a
    list item, its marker then at `lead > s`), `quote`, `heading`, `row`, `comment`, `line`
    (code); None when the marker is all the line holds."""
    if code:
        comment = _COMMENT.match(text, s, e)
        return (comment.end(), "comment") if comment else (s, "line")
    if _ROW.match(text, s, b):
        return s, "row"
    quote = _QUOTE.match(text, s, e)
    if quote:
        return (quote.end() if quote.end() < b else None), "quote"
    marker = _MARKER.match(text, s, e)
    kind = "heading" if _HEADING.match(text, s, b) else "p"
    if marker is None:
        return s, kind
    return (marker.end() if marker.end() < b else None), kind


def _cells(text: str, s: int, b: int) -> Iterator[Unit]:
    """Each cell of a table row with text (not the header rule's)."""
    for cell in _CELL.finditer(text, s, b):
        if _RULE.fullmatch(cell.group()):
            continue
        x, y = _content(text, *cell.span())
        if x < y:
            yield (x, y, ())


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

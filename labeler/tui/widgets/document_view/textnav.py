"""Word and sentence edges for moving the cursor and snapping a selection.

Annotators draw evidence on whole words and whole sentences, so the document view snaps
a rough keyboard or mouse selection out to them. Searches look at a bounded window around
the offset, which keeps every key press cheap on a 2 MB document.
"""

from __future__ import annotations

import re

from labeler.core.text.graphemes import is_boundary
from labeler.core.text.sentences import sentence_around

WINDOW = 4_000
"""How far to look for an edge; a sentence longer than this is cut at the window."""

_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_WORD = re.compile(rf"[\w{_MARKS}]+(?:['’][\w{_MARKS}]+)*")
"""A word, with its combining marks and inner apostrophes (customer's)."""


def _words_around(text: str, at: int) -> list[re.Match[str]]:
    return list(_WORD.finditer(text, max(0, at - WINDOW), min(len(text), at + WINDOW)))


def word_right(text: str, offset: int) -> int:
    """The end of the word at or after `offset` (the text end when there is none)."""
    m = _WORD.search(text, offset, min(len(text), offset + WINDOW))
    return len(text) if m is None else m.end()


def word_left(text: str, offset: int) -> int:
    """The start of the word before `offset` (0 when there is none)."""
    starts = [m.start() for m in _words_around(text, offset) if m.start() < offset]
    return starts[-1] if starts else 0


LEADING_JUNK = ",;:.!?–—-"
"""Punctuation a word selection never starts with (it belongs to the text before)."""
TRAILING_JUNK = ",;:–—-"
"""Punctuation a word selection never ends with (a sentence's final stop is kept)."""


def trim(text: str, start: int, end: int, lead: str = "", tail: str = "") -> tuple[int, int]:
    """The range without white space (nor `lead`/`tail` characters) at its edges."""
    while start < end and (text[start].isspace() or text[start] in lead):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in tail):
        end -= 1
    return start, end


def snap_word(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow a range out to whole words; an empty range becomes the word under it."""
    if start == end:
        for m in _words_around(text, start):
            if m.start() <= start <= m.end():
                return m.start(), m.end()
        return start, end
    start, end = trim(text, start, end, LEADING_JUNK, TRAILING_JUNK)
    for m in _words_around(text, start):
        if m.start() < start < m.end():
            start = m.start()
    for m in _words_around(text, end):
        if m.start() < end < m.end():
            end = m.end()
    return start, end


def snap_sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow a range out to whole sentences (the core's, as suggestions cut them: a wrapped
    line goes on, a list marker or heading mark is left out); an empty range becomes its
    sentence."""
    start, end = trim(text, start, end)
    if start == end:
        if start >= len(text) or text[start] == "\n":
            return start, end
        if start > 0 and text[start].isspace() and not text[start - 1].isspace():
            start = end = start - 1  # the space right after a sentence is its end
    return sentence_around(text, start, end, WINDOW)


def find_all(text: str, needle: str) -> list[tuple[int, int]]:
    """Every case-insensitive occurrence of `needle` that is whole characters (grapheme
    clusters, §13: `q` is not found inside `q̇`), as (start, end) offsets."""
    if not needle:
        return []
    found = (m.span() for m in re.finditer(re.escape(needle), text, re.IGNORECASE))
    return [(s, e) for s, e in found if is_boundary(text, s) and is_boundary(text, e)]

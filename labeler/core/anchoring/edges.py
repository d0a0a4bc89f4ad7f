"""Where a re-anchored span may begin and end (design §8): boundary kinds and graphemes.

A candidate should start and end on the same kind of boundary as the old quote (a whole
sentence yields the whole edited sentence), and never inside a grapheme. Boundaries are
found with regexes over a small window, since only a few edges per span are ever snapped.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from typing import Literal

from labeler.core.text.graphemes import is_boundary

Edge = Literal["sentence", "word", "none"]
"""What kind of boundary a quote's edge sits on, so that a candidate's edge can too."""

_MARGIN = 16
"""Extra text read around a window so that regexes see the context of its edges."""

_SKIN, _SKIN_END = "\U0001f3fb", "\U0001f3ff"
# Common combining marks, variation selectors and skin tones, kept inside tokens; `splits`
# is the complete rule that no edge may break.
_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe0e\ufe0f\ufe20-\ufe2f"
_MARKS += f"{_SKIN}-{_SKIN_END}"
# A token is a word with its marks, or a symbol with its marks and any ZWJ-joined symbols.
_TOKEN = re.compile(rf"(?:\w[{_MARKS}]*)+|(?:[^\w\s][{_MARKS}]*\u200d)*[^\w\s][{_MARKS}]*")
_WORD_CHAR = re.compile(rf"[\w{_MARKS}]")
_CLOSERS = "[\"')\\]\u201d\u2019]*"
_SENTENCE_GAP = re.compile(rf"[.!?]{_CLOSERS}\s+|\n\s*")
_SENTENCE_STOP = re.compile(rf"[.!?]{_CLOSERS}(?=\s|$)")
_LINE_BREAK = re.compile(r"[ \t]*\n")
_AFTER_SENTENCE = re.compile(rf"(?:^|[.!?]{_CLOSERS}\s|\n)\s*$")
_ENDS_SENTENCE = re.compile(rf"[.!?]{_CLOSERS}$")
_LINE_END = re.compile(r"[ \t]*(?:\n|$)")


def glue(char: str) -> bool:
    """True for characters that belong to the one before: marks, ZWJ, skin tones."""
    return unicodedata.category(char)[0] == "M" or char == "\u200d" or _SKIN <= char <= _SKIN_END


def splits(text: str, at: int) -> bool:
    """True when offset `at` falls inside a grapheme of `text` (the one rule, §13)."""
    return not is_boundary(text, at)


def _is_word(char: str) -> bool:
    return _WORD_CHAR.match(char) is not None


def start_edge(quote: str, prefix: str) -> Edge:
    """The boundary kind at the quote's start, judged from the quote and its old prefix."""
    if quote[0].isspace() or glue(quote[0]):
        return "none"
    if _AFTER_SENTENCE.search(prefix):
        return "sentence"
    if _is_word(prefix[-1]) and _is_word(quote[0]):
        return "none"
    return "word"


def end_edge(quote: str, suffix: str) -> Edge:
    """The boundary kind at the quote's end, judged from the quote and its old suffix."""
    if quote[-1].isspace() or (suffix and glue(suffix[0])):
        return "none"
    if _LINE_END.match(suffix) or (_ENDS_SENTENCE.search(quote) and suffix[0].isspace()):
        return "sentence"
    if _is_word(quote[-1]) and _is_word(suffix[0]):
        return "none"
    return "word"


def snap(text: str, ats: set[int], edge: Edge, side: Literal[0, 1], reach: int) -> set[int]:
    """Offsets that edges estimated at `ats` may snap to; side 0 is a start, 1 an end.

    The nearest boundaries of the quote's kind on either side of each estimate, within
    `reach`; a sentence edge falls back to word edges, and a word edge to the estimates
    themselves, only when no estimate has one of its own kind nearby."""
    ats = {max(0, min(at, len(text))) for at in ats}
    lo, hi = max(0, min(ats) - reach), min(len(text), max(ats) + reach)
    finders = {"sentence": (_sentence_edges, _token_edges), "word": (_token_edges,)}
    for find in finders.get(edge, ()):
        positions = find(text, lo, hi, side)
        options = {p for at in ats for p in _nearest(positions, at, reach)}
        if options:
            return options
    return {_out_of_grapheme(text, at, side) for at in ats}


def _nearest(positions: list[int], at: int, reach: int) -> list[int]:
    """The closest position at or before `at` and the closest after it, within `reach`."""
    i = bisect_right(positions, at)
    out = [positions[i - 1]] if i and at - positions[i - 1] <= reach else []
    if i < len(positions) and positions[i] - at <= reach:
        out.append(positions[i])
    return out


def _sentence_edges(text: str, lo: int, hi: int, side: int) -> list[int]:
    """Sentence (or line) starts, side 0, or ends, side 1, between lo and hi."""
    a, b = max(0, lo - _MARGIN), min(len(text), hi + _MARGIN)
    if side:
        found = [m.end() for m in _SENTENCE_STOP.finditer(text, a, b)]
        found += [m.start() for m in _LINE_BREAK.finditer(text, a, b)]
        if b == len(text):
            found.append(len(text.rstrip()))
        found = [p for p in found if p and not text[p - 1].isspace()]
    else:
        found = [m.end() for m in _SENTENCE_GAP.finditer(text, a, b)]
        if a == 0:
            found.append(len(text) - len(text.lstrip()))
        found = [p for p in found if p < len(text)]
    return sorted({p for p in found if lo <= p <= hi})


def _token_edges(text: str, lo: int, hi: int, side: int) -> list[int]:
    """Word and symbol starts, side 0, or ends, side 1, between lo and hi."""
    matches = _TOKEN.finditer(text, max(0, lo - _MARGIN), hi + _MARGIN)
    found = [p for m in matches if lo <= (p := m.span()[side]) <= hi]
    return [p for p in found if not splits(text, p)]


def _out_of_grapheme(text: str, at: int, side: int) -> int:
    """Move an offset out of a grapheme: a start backwards, an end forwards."""
    while splits(text, at):
        at += side or -1
    return at

"""What differs between an old quote and a candidate, and how a person nudges its edges.

Differences are found word by word (difflib over word, space and symbol tokens), because a
character diff of a reworded sentence marks scattered letters nobody can read. Pure
functions over strings and offsets, so they are tested without a screen.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import NamedTuple

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
_WORD_START = re.compile(r"(?<!\S)\S")
"""The first character of a word: words are split on white space, so an edge moved by a
word keeps the punctuation that goes with it ("€500.")."""
_WORD_END = re.compile(r"\S(?!\S)")
"""The last character of a word (lookbehind and lookahead see past `pos`)."""
_SPACE = re.compile(r"\s")
WINDOW = 2_000
"""How far an edge move looks for the next word; farther words are out of reach."""


class QuoteDiff(NamedTuple):
    """Ranges (offsets into each quote) that only one side has."""

    removed: tuple[tuple[int, int], ...]
    """Ranges of the old quote missing from the candidate."""
    added: tuple[tuple[int, int], ...]
    """Ranges of the candidate missing from the old quote."""


def _tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN.finditer(text)]


def quote_diff(old: str, new: str) -> QuoteDiff:
    """Word-level differences between the old quote and a candidate's text."""
    a, b = _tokens(old), _tokens(new)
    matcher = SequenceMatcher(None, [old[s:e] for s, e in a], [new[s:e] for s, e in b], False)
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            removed.append((a[i1][0], a[i2 - 1][1]))
        if j2 > j1:
            added.append((b[j1][0], b[j2 - 1][1]))
    return QuoteDiff(tuple(removed), tuple(added))


def context_window(
    text: str, start: int, end: int, *, around: int = 80, lines: int = 1
) -> tuple[int, int]:
    """Offsets of the context to show: up to `around` code points and `lines` non-blank
    lines each side of a range, cut at white space, so the quote itself stays in view."""
    lo, hi = max(0, start - around), min(len(text), end + around)
    before = _keep_lines(text[lo:start].split("\n")[::-1], lines)[::-1]
    after = _keep_lines(text[end:hi].split("\n"), lines)
    lo, hi = start - len("\n".join(before)), end + len("\n".join(after))
    if lo > 0 and len(before) == 1 and text[lo - 1] != "\n":
        cut = _SPACE.search(text, lo, start)
        lo = cut.end() if cut else lo
    if hi < len(text) and len(after) == 1 and text[hi] != "\n":
        cuts = [m.start() for m in _SPACE.finditer(text, end, hi)]
        hi = cuts[-1] if cuts else hi
    return lo, hi


def _keep_lines(parts: list[str], lines: int) -> list[str]:
    """The quote's own line plus the next parts holding at most `lines` non-blank ones."""
    kept = parts[:1]
    for part in parts[1:]:
        if part.strip() and sum(1 for k in kept[1:] if k.strip()) == lines:
            break
        kept.append(part)
    while len(kept) > 1 and not kept[-1].strip():
        kept.pop()
    return kept


def move_start(text: str, start: int, end: int, step: int) -> int:
    """The start moved to the word start before (step -1) or after (+1), staying before end."""
    if step < 0:
        lo = max(0, start - WINDOW)
        starts = [m.start() for m in _WORD_START.finditer(text, lo, start) if m.start() < start]
        return starts[-1] if starts else start
    found = _WORD_START.search(text, start + 1, min(len(text), start + WINDOW))
    return found.start() if found is not None and found.start() < end else start


def move_end(text: str, start: int, end: int, step: int) -> int:
    """The end moved to the word end before (step -1) or after (+1), staying after start."""
    if step > 0:
        found = _WORD_END.search(text, end)
        return found.end() if found is not None and found.end() - end <= WINDOW else end
    ends = []
    for m in _WORD_END.finditer(text, max(start, end - WINDOW)):
        if m.end() >= end:
            break
        ends.append(m.end())
    return ends[-1] if ends and ends[-1] > start else end

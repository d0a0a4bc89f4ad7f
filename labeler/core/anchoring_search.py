"""Where a stale quote may have gone: the search half of re-anchoring (SPEC §8).

Everything that depends only on a document pair (the old→new position map, the new text's
word index, its word and sentence boundaries) is built once per pair and shared by every
span in it; per span there are only a few small rapidfuzz calls, so 10,000 spans stay cheap.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cached_property
from typing import Literal

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

Edge = Literal["sentence", "word", "none"]
"""What kind of boundary a quote's edge sits on, so a candidate's edge can sit on one too."""

FLOOR = 0.5
"""Least quote similarity a candidate needs; below it the text is too different to offer."""

MIN_FUZZY = 6
"""Quotes shorter than this get exact candidates only: a fuzzy 3-letter match is noise."""

_MAX_OCCURRENCES = 32
"""Words seen more often than this in the new text are too common to seed a search."""

_MAX_SEEDS = 6
"""At most this many seeded regions are aligned per span."""

_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe0e\ufe0f\ufe20-\ufe2f\U0001f3fb-\U0001f3ff"
_GLUE = re.compile(f"[{_MARKS}\u200d]")
# A token is a word (with its combining marks) or one symbol with its marks and any
# ZWJ-joined symbols, so snapping to a token edge never splits a grapheme.
_TOKEN = re.compile(rf"(?:\w[{_MARKS}]*)+|(?:[^\w\s][{_MARKS}]*\u200d)*[^\w\s][{_MARKS}]*")
_WORD_CHAR = re.compile(rf"[\w{_MARKS}]")
_WORD = re.compile(r"\w{2,}")
_CLOSERS = "[\"')\\]\u201d\u2019]*"
_SENTENCE_GAP = re.compile(rf"[.!?]{_CLOSERS}\s+|\n\s*")
_SENTENCE_END = re.compile(rf"[.!?]{_CLOSERS}(?=\s|$)|\S(?=[ \t]*(?:\n|$))")
_AFTER_SENTENCE = re.compile(rf"(?:^|[.!?]{_CLOSERS}\s|\n)\s*$")
_ENDS_SENTENCE = re.compile(rf"[.!?]{_CLOSERS}$")
_LINE_END = re.compile(r"[ \t]*(?:\n|$)")


def _is_word(char: str) -> bool:
    return _WORD_CHAR.match(char) is not None


def start_edge(quote: str, prefix: str) -> Edge:
    """The boundary kind at the quote's start, judged from the quote and its old prefix."""
    if quote[0].isspace() or _GLUE.match(quote[0]):
        return "none"
    if _AFTER_SENTENCE.search(prefix):
        return "sentence"
    if _is_word(prefix[-1]) and _is_word(quote[0]):
        return "none"
    return "word"


def end_edge(quote: str, suffix: str) -> Edge:
    """The boundary kind at the quote's end, judged from the quote and its old suffix."""
    if quote[-1].isspace() or (suffix and _GLUE.match(suffix[0])):
        return "none"
    if _LINE_END.match(suffix) or (_ENDS_SENTENCE.search(quote) and suffix[0].isspace()):
        return "sentence"
    if _is_word(quote[-1]) and _is_word(suffix[0]):
        return "none"
    return "word"


def exact_occurrences(quote: str, text: str) -> list[int]:
    """Every start of `quote` in `text`, overlapping ones included, that splits no grapheme."""
    found: list[int] = []
    at = text.find(quote)
    while at >= 0:
        end = at + len(quote)
        if not (end < len(text) and _GLUE.match(text[end])) and not _GLUE.match(text[at]):
            found.append(at)
        at = text.find(quote, at + 1)
    return found


def _nearest(positions: list[int], at: int, reach: int) -> list[int]:
    """The closest position at or before `at` and the closest after it, within `reach`."""
    i = bisect_right(positions, at)
    out = [positions[i - 1]] if i and at - positions[i - 1] <= reach else []
    if i < len(positions) and positions[i] - at <= reach:
        out.append(positions[i])
    return out


class DocumentPair:
    """An old and a new text, with what every span in that document can reuse."""

    def __init__(self, old: str | None, new: str) -> None:
        self.old = old
        self.new = new

    @cached_property
    def _opcodes(self) -> tuple[list[int], list[tuple[str, int, int, int, int]]]:
        assert self.old is not None
        ops = [
            (op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end)
            for op in Levenshtein.opcodes(self.old, self.new)
            if op.src_end > op.src_start
        ]
        return [op[1] for op in ops], ops

    def map(self, pos: int) -> int:
        """Where old offset `pos` went in the new text, through a character diff."""
        if self.old is None:
            return min(pos, len(self.new))
        if pos >= len(self.old):
            return len(self.new)
        starts, ops = self._opcodes
        tag, src_start, src_end, dest_start, dest_end = ops[bisect_right(starts, pos) - 1]
        if tag == "equal":
            return dest_start + pos - src_start
        # Inside a replaced or deleted stretch: proportionally into what replaced it.
        return dest_start + (pos - src_start) * (dest_end - dest_start) // (src_end - src_start)

    @cached_property
    def words(self) -> dict[str, list[int]]:
        """Start offsets of every word of two or more characters in the new text."""
        index: dict[str, list[int]] = {}
        for m in _WORD.finditer(self.new):
            index.setdefault(m.group(), []).append(m.start())
        return index

    @cached_property
    def tokens(self) -> tuple[list[int], list[int]]:
        """Starts and ends of words and symbols: the places a word edge may snap to."""
        spans = [m.span() for m in _TOKEN.finditer(self.new)]
        return [s for s, _ in spans], [e for _, e in spans]

    @cached_property
    def sentences(self) -> tuple[list[int], list[int]]:
        """Starts and ends of sentences and lines: where a sentence edge may snap to."""
        text = self.new
        first = len(text) - len(text.lstrip())
        starts = [first] + [m.end() for m in _SENTENCE_GAP.finditer(text) if m.end() < len(text)]
        ends = sorted({m.end() for m in _SENTENCE_END.finditer(text)})
        return sorted(set(starts)), ends

    def seed_windows(self, quote: str, slack: int) -> list[tuple[int, int]]:
        """Regions where several of the quote's rarer words line up as they do in the quote."""
        diagonals: list[int] = []
        usable = 0
        for m in _WORD.finditer(quote):
            seen = self.words.get(m.group(), [])
            if len(seen) > _MAX_OCCURRENCES:
                continue
            usable += 1
            diagonals.extend(p - m.start() for p in seen)
        need = max(2, usable // 4)
        diagonals.sort()
        clusters: list[tuple[int, int, int]] = []
        i = 0
        while i < len(diagonals):
            j = i
            while j + 1 < len(diagonals) and diagonals[j + 1] - diagonals[i] <= slack:
                j += 1
            if j - i + 1 >= need:
                clusters.append((j - i + 1, diagonals[i], diagonals[j]))
            i = j + 1
        clusters.sort(key=lambda c: (-c[0], c[1]))
        return [(lo - slack, hi + len(quote) + slack) for _, lo, hi in clusters[:_MAX_SEEDS]]

    def edge_options(self, at: int, edge: Edge, side: Literal[0, 1], reach: int) -> list[int]:
        """Offsets an edge estimated at `at` may snap to; side 0 is a start, 1 an end."""
        if edge == "sentence":
            options = _nearest(self.sentences[side], at, reach)
            if options:
                return options
        if edge != "none":
            options = _nearest(self.tokens[side], at, reach)
            if options:
                return options
        return [self._off_glue(at, side)]

    def _off_glue(self, at: int, side: int) -> int:
        """Move an offset off a combining mark or ZWJ so it does not split a grapheme."""
        text = self.new
        at = max(0, min(at, len(text)))
        while 0 < at < len(text) and (_GLUE.match(text[at]) or text[at - 1] == "\u200d"):
            at += side or -1
        return at


def fuzzy_regions(quote: str, pair: DocumentPair, mapped: tuple[int, int]) -> list[tuple[int, int]]:
    """Rough places (start, end) where the quote aligns well: the whole text's best match,
    the best near the old position mapped through the diff, and the best near each seed."""
    text = pair.new
    slack = len(quote) // 2 + 8
    cutoff = FLOOR * 100 - 5  # the Indel ratio used here runs at or above the final similarity
    windows = [(mapped[0] - slack, max(mapped[1], mapped[0] + 1) + slack)]
    windows += pair.seed_windows(quote, slack)
    rough: list[tuple[int, int]] = []
    found = fuzz.partial_ratio_alignment(quote, text, score_cutoff=cutoff)
    if found is not None:
        rough.append((found.dest_start, found.dest_end))
    for lo, hi in _merged(windows, len(text)):
        found = fuzz.partial_ratio_alignment(quote, text[lo:hi], score_cutoff=cutoff)
        if found is not None and (lo + found.dest_start, lo + found.dest_end) not in rough:
            rough.append((lo + found.dest_start, lo + found.dest_end))
    return rough


def _merged(windows: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted((max(0, lo), min(size, hi)) for lo, hi in windows):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        elif hi > lo:
            out.append((lo, hi))
    return out


def refine(
    quote: str, pair: DocumentPair, rough: tuple[int, int], edges: tuple[Edge, Edge]
) -> tuple[int, int, float] | None:
    """Exact edges for a rough match: align the quote with Levenshtein, then snap each edge
    to the boundary kind the old quote had (a whole-sentence quote yields the whole edited
    sentence) and keep the snapped pair most similar to the quote, with its similarity."""
    text = pair.new
    slack = len(quote) // 2 + 8
    lo, hi = max(0, rough[0] - slack), min(len(text), rough[1] + slack)
    blocks = [op for op in Levenshtein.opcodes(quote, text[lo:hi]) if op.tag == "equal"]
    if not blocks:
        return None
    dense = [b for b in blocks if b.src_end - b.src_start >= min(3, len(quote))] or blocks
    start = lo + dense[0].dest_start - dense[0].src_start
    end = lo + dense[-1].dest_end + len(quote) - dense[-1].src_end
    best: tuple[float, int, int, int] | None = None
    for s in pair.edge_options(start, edges[0], 0, slack):
        for e in pair.edge_options(end, edges[1], 1, slack):
            if e > s:
                sim = Levenshtein.normalized_similarity(quote, text[s:e])
                if best is None or (sim, e - s) > best[:2]:
                    best = (sim, e - s, s, e)
    if best is None or best[0] < FLOOR:
        return None
    return best[2], best[3], best[0]

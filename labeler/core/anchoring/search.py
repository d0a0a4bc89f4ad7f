"""Where a stale quote may have gone: the search half of re-anchoring (design §8).

What depends only on a document pair (the old→new position map) is built once per pair and
shared by its spans; per span there are a handful of rapidfuzz calls over the whole text
and small windows, so 10,000 spans stay cheap.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import cached_property

from rapidfuzz import fuzz
from rapidfuzz.distance import Indel, Levenshtein

from labeler.core.anchoring.edges import Edge, snap, splits

FLOOR = 0.5
"""Least quote similarity a candidate needs; below it the text is too different to offer."""

MIN_FUZZY = 6
"""Quotes shorter than this get exact candidates only: a fuzzy 3-letter match is noise."""

SAME_PLACE = 0.5
"""Ranges whose intersection over union reaches this are one place; the better one stays."""

_MAX_OCCURRENCES = 16
"""Words seen more often than this in the new text are too common to seed a search."""

_SEED_WORDS = 4
"""How many of a quote's words (the longest) are looked up to seed regions."""

_MAX_SEEDS = 3
"""At most this many seeded regions are aligned per span."""

_MAX_ROUGH = 4
"""At most this many fuzzy places are refined per span (each costs a Levenshtein pass)."""

_WORD = re.compile(r"\w{2,}")
_UNIT = re.compile(r"[^.!?\n]*(?:[.!?]+ ?|\n)|[^.!?\n]+")


_Op = tuple[str, int, int, int, int]
"""A diff block: tag, old start, old end, new start, new end."""


def exact_occurrences(quote: str, text: str, prefix: str = "", suffix: str = "") -> list[int]:
    """Every start of `quote` in `text`, overlapping ones included, except those that split
    a grapheme (an `x` followed by a combining accent is not the old `x`) where the old
    span, with its `prefix` and `suffix`, did not."""
    old = prefix + quote + suffix
    was = (splits(old, len(prefix)), splits(old, len(prefix) + len(quote)))
    found: list[int] = []
    at = text.find(quote)
    while at >= 0:
        if (splits(text, at), splits(text, at + len(quote))) in ((False, False), was):
            found.append(at)
        at = text.find(quote, at + 1)
    return found


class DocumentPair:
    """An old and a new text, with what every span in that document can reuse."""

    def __init__(self, old: str | None, new: str) -> None:
        self.old = old
        self.new = new
        self._inside: dict[int, tuple[list[int], list[_Op]]] = {}

    @cached_property
    def _blocks(self) -> tuple[list[int], list[_Op]]:
        """Old→new blocks from a diff over sentences and lines: equal runs, and changed
        runs merged whole. Sentences, not lines, so that a long edited paragraph still
        outweighs a renumbered heading when the diff decides what matches what."""
        assert self.old is not None
        old_units, new_units = _UNIT.findall(self.old), _UNIT.findall(self.new)
        old_at, new_at = _offsets(old_units), _offsets(new_units)
        blocks: list[_Op] = []
        for op in Indel.opcodes(old_units, new_units):
            tag = "equal" if op.tag == "equal" else "changed"
            a, b = old_at[op.src_start], old_at[op.src_end]
            c, d = new_at[op.dest_start], new_at[op.dest_end]
            if blocks and tag == "changed" == blocks[-1][0]:
                _, a, _, c, _ = blocks.pop()
            blocks.append((tag, a, b, c, d))
        blocks = [b for b in blocks if b[2] > b[1]]
        return [b[1] for b in blocks], blocks

    def map(self, pos: int) -> int:
        """Where old offset `pos` went in the new text: a sentence diff, then a character
        diff inside changed sentences only (cheap, and exact for moved-but-equal text)."""
        if self.old is None:
            return min(pos, len(self.new))
        if pos >= len(self.old):
            return len(self.new)
        starts, blocks = self._blocks
        i = bisect_right(starts, pos) - 1
        if blocks[i][0] == "changed":
            starts, blocks = self._inside_block(i)
            i = bisect_right(starts, pos) - 1
        tag, src_start, src_end, dest_start, dest_end = blocks[i]
        if tag == "equal":
            return dest_start + pos - src_start
        # Inside a replaced or deleted stretch: proportionally into what replaced it.
        return dest_start + (pos - src_start) * (dest_end - dest_start) // (src_end - src_start)

    def _inside_block(self, i: int) -> tuple[list[int], list[_Op]]:
        if i not in self._inside:
            assert self.old is not None
            _, a, b, c, d = self._blocks[1][i]
            ops = [
                (op.tag, a + op.src_start, a + op.src_end, c + op.dest_start, c + op.dest_end)
                for op in Levenshtein.opcodes(self.old[a:b], self.new[c:d])
                if op.src_end > op.src_start
            ]
            self._inside[i] = ([op[1] for op in ops], ops)
        return self._inside[i]

    def seed_windows(self, quote: str, slack: int) -> list[tuple[int, int]]:
        """Regions where two or more of the quote's rarer words sit as they do in the quote.

        The longest words stand in for the rarest; each is counted in C first so that a
        common one costs one scan, not a loop over its occurrences.
        """
        text = self.new
        diagonals: list[int] = []
        usable = 0
        for word in sorted(set(_WORD.findall(quote)), key=lambda w: (-len(w), w))[:_SEED_WORDS]:
            if not 0 < text.count(word) <= _MAX_OCCURRENCES:
                continue
            usable += 1
            offset, at = quote.find(word), text.find(word)
            while at >= 0:
                diagonals.append(at - offset)
                at = text.find(word, at + 1)
        if usable < 2:
            return []
        best = _clusters(sorted(diagonals), slack)[:_MAX_SEEDS]
        return [(lo - slack, hi + len(quote) + slack) for _, lo, hi in best]


def _clusters(diagonals: list[int], width: int) -> list[tuple[int, int, int]]:
    """Runs of two or more sorted diagonals within `width` of the run's first, as (votes,
    first, last), most votes first: several words agreeing on where the quote starts."""
    clusters: list[tuple[int, int, int]] = []
    i = 0
    while i < len(diagonals):
        j = i
        while j + 1 < len(diagonals) and diagonals[j + 1] - diagonals[i] <= width:
            j += 1
        if j > i:
            clusters.append((j - i + 1, diagonals[i], diagonals[j]))
        i = j + 1
    return sorted(clusters, key=lambda c: (-c[0], c[1]))


def _offsets(units: list[str]) -> list[int]:
    out = [0]
    for unit in units:
        out.append(out[-1] + len(unit))
    return out


def fuzzy_regions(
    quote: str, pair: DocumentPair, mapped: tuple[int, int], taken: Iterable[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Rough places (start, end) to refine, most likely first: the old span mapped through
    the diff (where edited text most often is), the best alignment near it, then, best
    first, the best in the whole text and near each seed (a window yields only its best,
    so a look-alike neighbour could hide the mapped place). Places overlapping one already
    `taken` (an exact occurrence) or listed are left out; each costs a refinement."""
    text = pair.new
    slack = reach(quote)
    near = (mapped[0] - slack, max(mapped[1], mapped[0] + 1) + slack)
    hits = [(-101.0, *mapped)]
    hits += [_best_in(quote, text, lo, hi) for lo, hi in _merged([near], len(text))]
    others = [(0, len(text)), *_merged(pair.seed_windows(quote, slack), len(text))]
    hits += sorted(_best_in(quote, text, lo, hi) for lo, hi in others)
    seen, rough = list(taken), list[tuple[int, int]]()
    for hit in hits:
        place = hit[1:]
        if hit[0] < 0 and all(overlap(place, other) < SAME_PLACE for other in seen + rough):
            rough.append(place)
    return rough[:_MAX_ROUGH]


def reach(quote: str) -> int:
    """How far a match may stray from a rough place: about half the quote in edits."""
    return len(quote) // 2 + 8


def _best_in(quote: str, text: str, lo: int, hi: int) -> tuple[float, int, int]:
    """(-score, start, end) of the quote's best alignment in text[lo:hi]; score 0 if none.

    The Indel ratio used here runs at or above the final Levenshtein similarity, so a cutoff
    a little under the floor drops nothing that could reach it."""
    hit = fuzz.partial_ratio_alignment(quote, text[lo:hi], score_cutoff=FLOOR * 100 - 5)
    return (0.0, lo, lo) if hit is None else (-hit.score, lo + hit.dest_start, lo + hit.dest_end)


def overlap(a: tuple[int, int], b: tuple[int, int]) -> float:
    """Intersection over union of two ranges."""
    inter = min(a[1], b[1]) - max(a[0], b[0])
    return max(0, inter) / max(1, max(a[1], b[1]) - min(a[0], b[0]))


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
    """Exact edges for a rough match, with their similarity to the quote.

    Each edge is estimated twice (the rough match's, and a Levenshtein alignment's with the
    unmatched head and tail projected outward), snapped to the boundary kind the old quote
    had (so a whole-sentence quote yields the whole edited sentence), and the snapped pair
    most similar to the quote wins."""
    text = pair.new
    slack = reach(quote)
    lo, hi = max(0, rough[0] - slack), min(len(text), rough[1] + slack)
    blocks = [op for op in Levenshtein.opcodes(quote, text[lo:hi]) if op.tag == "equal"]
    starts, ends = {rough[0]}, {rough[1]}
    dense = [b for b in blocks if b.src_end - b.src_start >= min(3, len(quote))] or blocks
    if dense:
        starts.add(lo + dense[0].dest_start - dense[0].src_start)
        ends.add(lo + dense[-1].dest_end + len(quote) - dense[-1].src_end)
    best = (0.0, 0, 0, 0)
    end_options = snap(text, ends, edges[1], 1, slack)
    for s in snap(text, starts, edges[0], 0, slack):
        for e in end_options:
            if e > s:
                sim = Levenshtein.normalized_similarity(quote, text[s:e], score_cutoff=FLOOR)
                best = max(best, (sim, e - s, -s, e))
    return (-best[2], best[3], best[0]) if best[0] >= FLOOR else None

"""The anchor's distance (§17): where a question's own words sit in the evidence's document,
apart from the evidence, and whether a candidate's chunk can hold the two together.

Seed 002's question names "customs clearance"; its evidence is "9 dollars", 88 characters
later. Overlap only recovers a fact whose anchor and value sit closer than the overlap, so a
plan says how far, against each candidate's window. Words are the corpus search's
(`labeler.core.text.sentences`: folded, stop words left out).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from evaluator.chunk import Chunk
from evaluator.chunking.spec import SplitterSpec
from evaluator.chunking.units import Units
from evaluator.plan.holds import hold, measured
from evaluator.plan.model import Anchor, AnchorFit, Hold
from labeler.core.display import shown
from labeler.core.text.sentences import terms, word_terms

_BREAK = re.compile(r"[.!?\n]")
"""What ends a phrase: a sentence end or a line break."""
JOIN = 24
"""Characters between two of the question's words that still make them one anchor."""
WORDS = 2
"""Distinct question words an anchor holds at least: one common word is no anchor."""


def anchor_range(question: str, text: str, start: int, end: int) -> tuple[int, int] | None:
    """Where the question's words the evidence lacks sit nearest to it as a phrase (at least
    WORDS of them, each within JOIN characters of the next), or None."""
    wanted = set(terms(question)) - {t for _, _, t in word_terms(text, start, end)}
    found = [w for w in _where(text, wanted) if w[1] <= start or w[0] >= end]
    phrases = [p for p in _phrases(found, start, text) if len({t for _, _, t in p}) >= WORDS]
    if not phrases:
        return None
    best = min(phrases, key=lambda p: gap((p[0][0], p[-1][1]), start, end))
    return best[0][0], best[-1][1]


def _where(text: str, wanted: set[str]) -> list[tuple[int, int, str]]:
    """The words of `text` that are wanted terms, in order. An ASCII text is searched for
    them alone (a word there is a run of letters and digits, its one term its lower case);
    any other text has every word listed once (`plan` asks per span: 0.7 s of 1.6 at 12 MB
    went to listing words no question asks for)."""
    if text.isascii():
        if not wanted or not (asked := sorted(t for t in wanted if t.isascii())):
            return []
        pattern = "(?<![a-z0-9])(?:" + "|".join(map(re.escape, asked)) + ")(?![a-z0-9])"
        return [(m.start(), m.end(), m.group()) for m in re.finditer(pattern, _lower(text))]
    words, where = _terms(text)
    return [words[i] for i in sorted(i for t in wanted for i in where.get(t, ()))]


@lru_cache(maxsize=4)
def _lower(text: str) -> str:
    return text.lower()


@lru_cache(maxsize=4)
def _terms(text: str) -> tuple[tuple[tuple[int, int, str], ...], dict[str, list[int]]]:
    """A document's words, and where each term sits among them (the last few documents
    kept: a plan asks per span, and looks up only the question's terms)."""
    words = tuple(word_terms(text))
    where: dict[str, list[int]] = {}
    for i, (_, _, term) in enumerate(words):
        where.setdefault(term, []).append(i)
    return words, where


def _phrases(
    found: list[tuple[int, int, str]], start: int, text: str
) -> list[list[tuple[int, int, str]]]:
    """Runs of the question's words, each within JOIN characters of the one before with no
    sentence end or line break between, on one side of the evidence (starting at `start`)."""
    runs: list[list[tuple[int, int, str]]] = []
    for word in found:
        last = runs[-1][-1] if runs else None
        if (last and word[0] - last[1] <= JOIN and (last[1] <= start) == (word[1] <= start)
                and not _BREAK.search(text, last[1], word[0])):  # fmt: skip
            runs[-1].append(word)
        else:
            runs.append([word])
    return runs


def gap(r: tuple[int, int], start: int, end: int) -> int:
    """Characters between a range and [start, end) (0 when they meet)."""
    return max(0, start - r[1], r[0] - end)


def anchor(text: str, lo: int, hi: int, start: int, end: int) -> Anchor:
    """The anchor [lo, hi) beside the evidence [start, end), its fits not yet known."""
    before = hi <= start
    distance = start - lo if before else lo - end
    reach = max(hi, end) - min(lo, start)
    return Anchor(shown(text[lo:hi], lines=False), lo, hi, before, distance, reach, ())


def said(a: Anchor) -> str:
    """`"customs clearance" sits 88 characters before the evidence; together 97`."""
    where = "before the evidence" if a.before else "after the evidence ends"
    return (f'"{a.words}" sits {a.distance} characters {where}; with the evidence '
            f"{a.reach} characters")  # fmt: skip


@dataclass(frozen=True)
class Side:
    """One candidate as the anchor's fit needs it."""

    name: str
    """The candidate's name."""
    spec: SplitterSpec
    """How it cuts."""
    touching: Callable[[int, int], Sequence[Chunk]]
    """Its chunks of the document meeting [lo, hi]."""
    units: Callable[[], Units]
    """The document measured in its unit (asked only when advice is needed)."""
    advice: Callable[[int, int, float], Hold] | None = None
    """What would hold a range, when not the splitter's own overlap (a context unit's)."""


def fit(side: Side, text_len: int, lo: int, hi: int) -> AnchorFit:
    """Whether one chunk of the side holds [lo, hi) whole; if not, what would."""
    if any(c.start <= lo and hi <= c.end for c in side.touching(lo, hi)):
        return AnchorFit(side.name, True, None)
    if side.advice is not None:
        return AnchorFit(side.name, False, side.advice(lo, hi, 1.0))
    return AnchorFit(side.name, False, hold(side.spec, side.units(), text_len, lo, hi, 1.0))


def span_anchor(
    question: str, text: str, start: int, end: int, sides: Sequence[Side]
) -> Anchor | None:
    """The question's anchor beside the evidence [start, end), when some side cannot hold the
    two in one chunk (`plan`, `show` and triage say the same)."""
    where = anchor_range(question, text, start, end)
    if where is None:
        return None
    lo, hi = min(where[0], start), max(where[1], end)
    fits = tuple(fit(side, len(text), lo, hi) for side in sides)
    if all(f.held for f in fits):
        return None
    return replace(anchor(text, *where, start, end), fits=fits)


def fit_words(found: AnchorFit) -> str:
    """`one chunk holds both`, or what would."""
    return "one chunk holds both" if found.hold is None else found.hold.words


def anchor_words(found: Anchor) -> list[str]:
    """The anchor, then each candidate's fit, as every view says them (plain text)."""
    return [f"anchor: {said(found)}", *(f"  {f.candidate}: {fit_words(f)}" for f in found.fits)]


def listed_sides(
    cut: Mapping[str, tuple[SplitterSpec, Sequence[Chunk]]], doc: str, text: str
) -> list[Side]:
    """Sides from chunk lists (`show` and triage hold each candidate's chunks as a list)."""

    def side(name: str, spec: SplitterSpec, chunks: Sequence[Chunk]) -> Side:
        mine = [c for c in chunks if c.doc == doc]
        return Side(name, spec, lambda lo, hi: [c for c in mine if c.start <= hi and c.end >= lo],
                    lambda: measured(spec, text))  # fmt: skip

    return [side(name, spec, chunks) for name, (spec, chunks) in cut.items()]

"""Each span of the project's extraction found again in an alternative's text (§22, §8).

The stale-span scoring proposes where a span went and how sure it is (its score); no person
decides. Then the span's fate is named from the two texts: kept, moved (found, its context
changed), changed (found with edits), a table row torn from its header, a hyphen split, two
columns interleaved, or lost. A span scored below the confidence threshold is lost to
retrieval whatever its fate's name: the alternative's text does not hold it as labelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from labeler.core.anchoring.candidates import AnchorCandidate, propose
from labeler.core.values import Span

CONTEXT_KEPT = 0.75
"""Prefix and suffix similarity at or above which a found span kept its neighbours."""
WINDOW = 4
"""Interleaved: the quote's words in order within this many times its length."""
SHARE = 0.8
"""Interleaved: at least this share of the quote's words found in order."""
MAX_STARTS = 50
"""Interleaved: the first word's occurrences tried, at most."""


class Fate(StrEnum):
    """What an alternative extraction did to a span, worst last."""

    KEPT = "kept"
    MOVED = "moved"
    CHANGED = "changed"
    ROW_WITHOUT_HEADER = "row-without-header"
    HYPHEN_SPLIT = "hyphen-split"
    INTERLEAVED = "interleaved"
    LOST = "lost"


MEANING = {
    Fate.KEPT: "found as labelled, among the same neighbours",
    Fate.MOVED: "found as labelled, its neighbours changed (reordered around it)",
    Fate.CHANGED: "found with edits",
    Fate.ROW_WITHOUT_HEADER: "a table row's cells found, its header no longer in its block",
    Fate.HYPHEN_SPLIT: "found only with a word's hyphen and line break left in it",
    Fate.INTERLEAVED: "its words found in order, other text between them (columns mixed)",
    Fate.LOST: "not found",
}
"""One line per fate, for the report's legend."""


@dataclass(frozen=True)
class Found:
    """One span in an alternative's text."""

    fate: Fate
    """What the extractor did to it."""
    confidence: float
    """The best re-anchoring score (0 without a candidate)."""
    place: tuple[int, int] | None
    """Where it is in the alternative's text, when confidence reaches the threshold."""


def find(span: Span, old: str, new: str | None, threshold: float) -> Found:
    """`span` (on the project's text `old`) in an alternative's text `new` (None: the
    alternative could not read the document)."""
    if new is None:
        return Found(Fate.LOST, 0.0, None)
    found = propose(span, old, new, limit=1).candidates
    best = found[0] if found else None
    confidence = best.score if best is not None else 0.0
    place = (best.start, best.end) if best is not None and confidence >= threshold else None
    return Found(_fate(span, old, new, best), round(confidence, 4), place)


def _fate(span: Span, old: str, new: str, best: AnchorCandidate | None) -> Fate:
    header = table_header(old, span.start)
    if header is not None and torn(new, row_cells(old, span.start), header, best):
        return Fate.ROW_WITHOUT_HEADER
    if best is not None and best.kind == "exact":
        parts = best.parts
        kept = min(parts.prefix, parts.suffix) >= CONTEXT_KEPT
        return Fate.KEPT if kept else Fate.MOVED
    if span.quote in re.sub(r"(\w)-\n(\w)", r"\1\2", new):
        return Fate.HYPHEN_SPLIT
    if interleaved(span.quote, new):
        return Fate.INTERLEAVED
    return Fate.CHANGED if best is not None else Fate.LOST


def _line_at(text: str, at: int) -> tuple[int, int]:
    """Start and end (before its newline) of the line holding `at`."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return start, len(text) if end < 0 else end


def cells(line: str) -> list[str]:
    """A pipe row's cells, stripped."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def row_cells(text: str, at: int) -> list[str]:
    """The cells of the row holding offset `at`."""
    start, end = _line_at(text, at)
    return [c for c in cells(text[start:end]) if c]


RULE = re.compile(r"\|(\s*:?-{3,}:?\s*\|)+")
"""A Markdown table's rule line, under its header."""


def table_header(text: str, at: int) -> list[str] | None:
    """The header cells of the table whose body row holds `at`, or None when `at` is not in
    a table's body row (a header itself, a rule, or no table)."""
    start, end = _line_at(text, at)
    if not text[start:end].startswith("|") or RULE.fullmatch(text[start:end].strip()):
        return None
    lines = text[:start].split("\n")[:-1]
    for i in range(len(lines) - 1, 0, -1):
        if not lines[i].startswith("|"):
            return None
        if RULE.fullmatch(lines[i].strip()):
            return [c for c in cells(lines[i - 1]) if c]
    return None


def _in_order(items: list[str]) -> re.Pattern[str]:
    """Items in order on one line, each whole, anything but a newline between."""
    return re.compile(r"(?<!\w)" + r"[^\n]*?".join(re.escape(c) for c in items) + r"(?!\w)")


def torn(new: str, row: list[str], header: list[str], best: AnchorCandidate | None) -> bool:
    """The row's cells are on one line of `new` (the one the best candidate is on, else the
    first), and no line above it in its block holds the header's cells."""
    if not row or not header:
        return False
    places = [m.start() for m in _in_order(row).finditer(new)]
    if not places:
        return False
    near = best.start if best is not None else places[0]
    at = min(places, key=lambda p: abs(p - near))
    line_start, _ = _line_at(new, at)
    block_start = new.rfind("\n\n", 0, line_start) + 2 if "\n\n" in new[:line_start] else 0
    above = new[block_start:line_start]
    return _in_order(header).search(above) is None


def interleaved(quote: str, new: str) -> bool:
    """Most of the quote's words (SHARE) are in `new` in order within WINDOW times its
    length, but the quote is not there as one stretch: other text came between its words (a
    word broken at a hyphen may be missing). Each start of its first word is walked word by
    word (at most MAX_STARTS of them), so a long quote costs linear time."""
    words = re.findall(r"\w+", quote)
    if len(words) < 2 or re.search(r"\W+".join(re.escape(w) for w in words), new):
        return False
    finders = [re.compile(rf"(?<!\w){re.escape(w)}(?!\w)") for w in words]
    reach = WINDOW * len(quote)
    for n, first in enumerate(finders[0].finditer(new)):
        if n >= MAX_STARTS:
            break
        at, found = first.end(), 1
        for finder in finders[1:]:
            hit = finder.search(new, at, first.start() + reach)
            if hit is not None:
                at, found = hit.end(), found + 1
        if found >= SHARE * len(words):
            return True
    return False

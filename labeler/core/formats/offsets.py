"""Offset units of foreign tools, detected per span and reported per import (design §14).

Python tools (Prodigy, spaCy, Label Studio since 2022) count code points; JavaScript
front ends (doccano #2290, Argilla #5729) count UTF-16 code units; some count UTF-8 bytes
or grapheme clusters. They agree until the first emoji or combining mark, then drift. A
span's quote, when the file has one, decides the unit; without one, the tool's own unit
is tried first and a unit is only accepted where both offsets fall on its boundaries.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field

import regex

CODE_POINTS = "code points"
UTF16 = "UTF-16 code units"
BYTES = "UTF-8 bytes"
GRAPHEMES = "grapheme clusters"
UNITS = (CODE_POINTS, UTF16, BYTES, GRAPHEMES)
"""Every unit a span's offsets may be counted in."""
_GRAPHEME = regex.compile(r"\X")


def _widths(text: str, unit: str) -> list[int]:
    """Code points before each unit boundary: boundary i of `unit` is at code point w[i]."""
    if unit == GRAPHEMES:
        return [0, *itertools.accumulate(len(m) for m in _GRAPHEME.findall(text))]
    size = (lambda c: 2 if ord(c) > 0xFFFF else 1) if unit == UTF16 else None
    if unit == BYTES:
        size = lambda c: len(c.encode("utf-8", "surrogatepass"))  # noqa: E731
    assert size is not None
    steps = list(itertools.accumulate((size(c) for c in text), initial=0))
    inverse = {units: cp for cp, units in enumerate(steps)}
    return [inverse.get(u, -1) for u in range(steps[-1] + 1)]


@dataclass
class UnitView:
    """One text's boundaries in every unit, computed once per unit on first use."""

    text: str
    """The text the tool's offsets count in."""
    _cache: dict[str, list[int]] = field(default_factory=dict)

    def to_code_points(self, unit: str, offset: int) -> int | None:
        """The code point at boundary `offset` of `unit`, or None if it is not one."""
        if unit == CODE_POINTS:
            return offset if 0 <= offset <= len(self.text) else None
        if unit not in self._cache:
            self._cache[unit] = _widths(self.text, unit)
        table = self._cache[unit]
        found = table[offset] if 0 <= offset < len(table) else -1
        return found if found >= 0 else None


def _same(found: str, quote: str) -> bool:
    return found == quote or found.split() == quote.split()


@dataclass
class UnitReport:
    """How the spans of one import were counted."""

    counts: Counter[str] = field(default_factory=Counter)
    """Unit -> spans read in it."""
    remapped: Counter[str] = field(default_factory=Counter)
    """Unit -> spans whose offsets changed when read as code points."""

    def resolve(
        self, view: UnitView, start: int, end: int, quote: str | None, order: tuple[str, ...]
    ) -> tuple[int, int] | None:
        """Code-point offsets of a span: the first unit of `order` (then the others) whose
        boundaries both offsets are on and, with a quote, whose text matches it."""
        for unit in dict.fromkeys([*order, *UNITS]):
            s, e = view.to_code_points(unit, start), view.to_code_points(unit, end)
            if s is None or e is None or s >= e:
                continue
            if quote is not None and not _same(view.text[s:e], quote):
                continue
            self.counts[unit] += 1
            if (s, e) != (start, end):
                self.remapped[unit] += 1
            return s, e
        return None

    def lines(self, file: str) -> list[str]:
        """One warning per unit that changed offsets, and the units seen."""
        seen = ", ".join(f"{n} in {u}" for u, n in self.counts.most_common())
        out = [f"{file}: span offsets read as {seen}"] if self.counts else []
        out += [
            f"{file}: {n} span(s) remapped from {unit} to code points"
            for unit, n in self.remapped.most_common()
        ]
        return out


def to_unit(text: str, offset: int, unit: str) -> int:
    """A code-point offset counted in `unit` (for writers handing offsets back)."""
    head = text[:offset]
    if unit == UTF16:
        return len(head.encode("utf-16-le")) // 2
    if unit == BYTES:
        return len(head.encode("utf-8"))
    if unit == GRAPHEMES:
        return len(_GRAPHEME.findall(head))
    return offset

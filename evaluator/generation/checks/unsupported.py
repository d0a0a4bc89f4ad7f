"""Unsupported content (§23): the checkable items of an answer — quoted strings, dates,
amounts, numbers — that no source it cites holds. Names are not extracted (no tagger runs
here); a quoted name is checked as a quoted string.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from evaluator.generation.checks.citations import citations
from evaluator.generation.checks.text import normal, without_citations
from evaluator.generation.prompt import Source

_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October"
          r"|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?")  # fmt: skip
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
PATTERNS = (
    ("quoted", re.compile(r'"([^"\n]{1,200})"|“([^”\n]{1,200})”|«([^»\n]{1,200})»')),
    ("date", re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}} {_MONTH} \d{{4}}\b"
                        rf"|\b{_MONTH} \d{{1,2}},? \d{{4}}\b", re.IGNORECASE)),
    ("amount", re.compile(rf"[$€£¥]\s?(?:{_NUMBER})|(?:{_NUMBER})\s?(?:%|percent\b|USD\b|EUR\b"
                          r"|GBP\b|dollars\b|euros?\b)", re.IGNORECASE)),
    ("number", re.compile(rf"(?<![\w.,])(?:{_NUMBER})(?![\w])")),
)  # fmt: skip
"""Item kinds in the order they are taken: a found item's characters are not read again
(a date's year is not also a number)."""
_DIGITS = re.compile(_NUMBER)


@dataclass(frozen=True)
class Item:
    kind: str
    """quoted | date | amount | number."""
    text: str
    """As the answer wrote it (raw: show it through the display rule)."""


def items(answer: str) -> tuple[Item, ...]:
    """The checkable items of `answer`, citations left out, in the order of PATTERNS. Each
    kind reads the text with the earlier kinds' items blanked, built once per kind: an
    answer of 200,000 characters holding 50,000 items is read in linear time."""
    text, out = without_citations(answer), list[Item]()
    for kind, pattern in PATTERNS:
        pieces, at = [], 0
        for found in pattern.finditer(text):
            inner = next((g for g in found.groups() if g), found.group(0))
            out.append(Item(kind, inner.strip()))
            pieces += [text[at : found.start()], " " * (found.end() - found.start())]
            at = found.end()
        text = "".join(pieces) + text[at:]
    return tuple(out)


def _numbers(text: str) -> set[str]:
    return {m.group(0).replace(",", "") for m in _DIGITS.finditer(text)}


def supported(item: Item, source: str) -> bool:
    """Numbers and amounts: each number the item states is a number of the source (thousands
    separators ignored); dates and quoted strings: `normal(item)` is in `normal(source)`."""
    return _Held(source).supports(item)


class _Held:
    """A cited source read once (its normal form and its numbers), for every item checked
    against it: reading it again per item made a many-item answer quadratic."""

    def __init__(self, source: str) -> None:
        self.normal = f" {normal(source)} "
        self.numbers = _numbers(source)

    def supports(self, item: Item) -> bool:
        if item.kind in ("number", "amount"):
            numbers = _numbers(item.text)
            return bool(numbers) and numbers <= self.numbers
        wanted = normal(item.text)
        return bool(wanted) and f" {wanted} " in self.normal


@dataclass(frozen=True)
class Unsupported:
    """unsupported = |{x ∈ items(answer) : no cited source s has supported(x, s)}|, the
    items listed; cited sources are the valid citations (`citations`), so an answer that
    cites nothing has every item unsupported."""

    name = "unsupported"
    items: tuple[Item, ...]
    """The unsupported items, in the order found."""
    checked: int
    """Items found in the answer."""

    @property
    def value(self) -> int:
        return len(self.items)


def unsupported(answer: str, sources: Sequence[Source]) -> Unsupported:
    cited = [_Held(sources[n - 1].text) for n in citations(answer, len(sources)).valid]
    found = items(answer)
    bad = tuple(x for x in found if not any(s.supports(x) for s in cited))
    return Unsupported(bad, len(found))

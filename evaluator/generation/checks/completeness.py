"""Completeness (§23): the labelled facts a complete answer states, and how many it does.

A fact is stated when one of its alternatives is, by one rule: normal(alternative) is in
normal(answer) on whole words; or, for an alternative without digits, rapidfuzz's
`partial_ratio` of the two is at least FUZZY (a plural, a hyphen, a typo). Digits are never
matched fuzzily: "30 days" is not "31 days".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from evaluator.generation.checks.text import contains, normal, without_citations

FUZZY = 90.0
"""Least partial_ratio (0–100) at which an alternative without digits counts as stated."""


def stated(alternative: str, answer: str) -> bool:
    """The module's rule, for one alternative; `answer` already `normal`."""
    wanted = normal(alternative)
    if not wanted:
        return False
    if contains(answer, wanted):
        return True
    if any(ch.isdigit() for ch in wanted):
        return False
    return fuzz.partial_ratio(wanted, answer) >= FUZZY


@dataclass(frozen=True)
class Completeness:
    """completeness = |{f ∈ F : some alternative of f is stated}| / |F|, F the query's
    labelled facts; None when it has none."""

    name = "completeness"
    stated: tuple[bool, ...]
    """Per fact, in label order."""

    @property
    def value(self) -> float | None:
        return sum(self.stated) / len(self.stated) if self.stated else None


def completeness(answer: str, facts: Sequence[Sequence[str]]) -> Completeness:
    """`facts`: per fact, its alternatives (one phrase, or several that each suffice)."""
    said = normal(without_citations(answer))
    return Completeness(tuple(any(stated(a, said) for a in alts) for alts in facts))

"""The facts a complete answer states (§23): a query's answer labels, checked in one place.

A fact is a tuple of alternative phrasings, the first the preferred one. They live apart
from values.py so the store, the label-set reader and the app share one rule (and one
normalisation for "the same phrase") without growing the query value's module.
"""

from __future__ import annotations

from labeler.core.display import describe, unsafe_at
from labeler.core.errors import LabelError

MAX_FACTS = 50
"""Most facts one query may carry: what a complete answer states, not a document."""
MAX_ALTERNATIVES = 10
"""Most phrasings of one fact."""
MAX_FACT_CHARS = 200
"""Longest phrasing (code points): a short phrase, not a passage."""

Facts = tuple[tuple[str, ...], ...]
"""A query's facts: per fact, its alternatives."""


def fact_key(phrase: str) -> str:
    """What makes two phrasings the same for the duplicate rule: case and runs of white
    space aside (`30 Days` and `30  days` are one phrase)."""
    return " ".join(phrase.casefold().split())


def tidy_phrase(text: str) -> str:
    """A selection or a typed line as a phrasing: white space runs (a wrapped line's
    newline too) become one space, the ends trimmed."""
    return " ".join(text.split())


def phrase_problem(phrase: object) -> str | None:
    """Why `phrase` is no phrasing of a fact, or None: a non-empty single-line text of at
    most MAX_FACT_CHARS code points, trimmed, with no control character."""
    if not isinstance(phrase, str):
        return f"must be a text, got {type(phrase).__name__}"
    if not phrase.strip():
        return "is empty"
    if len(phrase) > MAX_FACT_CHARS:
        return f"is {len(phrase):,} characters, over the limit of {MAX_FACT_CHARS}"
    if (at := unsafe_at(phrase)) is not None:
        return f"holds {describe(phrase, at)} at offset {at}"
    if phrase != phrase.strip():
        return "starts or ends with white space"
    return None


def check_facts(qid: str, facts: Facts, *, abstain: bool = False) -> None:
    """Refuse facts that break the rules: bounded count, each fact 1 to MAX_ALTERNATIVES
    phrasings (`phrase_problem`), no phrasing twice in the query, none on an abstention."""
    if not isinstance(facts, tuple):
        raise LabelError(f"query {qid}: facts must be a list of facts", key="facts")
    if abstain and facts:
        raise LabelError(
            f"query {qid} is an abstention query but has facts (an abstention has no answer)",
            key="facts",
        )
    if len(facts) > MAX_FACTS:
        raise LabelError(
            f"query {qid}: {len(facts)} facts, over the limit of {MAX_FACTS}", key="facts"
        )
    seen: dict[str, int] = {}
    for i, fact in enumerate(facts):
        _check_fact(qid, i, fact, seen)


def _check_fact(qid: str, i: int, fact: object, seen: dict[str, int]) -> None:
    if not isinstance(fact, tuple) or not 1 <= len(fact) <= MAX_ALTERNATIVES:
        raise LabelError(
            f"query {qid}: facts[{i}] must hold 1 to {MAX_ALTERNATIVES} phrasings",
            key=f"facts[{i}]",
        )
    for j, phrase in enumerate(fact):
        if problem := phrase_problem(phrase):
            raise LabelError(f"query {qid}: facts[{i}][{j}] {problem}", key=f"facts[{i}][{j}]")
        assert isinstance(phrase, str)
        if (k := seen.setdefault(fact_key(phrase), i)) != i or fact_key(phrase) in {
            fact_key(p) for p in fact[:j] if isinstance(p, str)
        }:
            raise LabelError(
                f"query {qid}: facts[{i}][{j}] {phrase[:40]!r} repeats a phrasing of facts[{k}]",
                key=f"facts[{i}][{j}]",
            )


def with_fact(qid: str, facts: Facts, phrase: str) -> Facts:
    """`facts` and one more, `phrase` (tidied) its only phrasing; refused by the rule."""
    new = (*facts, (tidy_phrase(phrase),))
    check_facts(qid, new)
    return new


def with_alternative(qid: str, facts: Facts, at: int, phrase: str) -> Facts:
    """`facts` with `phrase` (tidied) another phrasing of fact `at`; refused by the rule."""
    new = tuple((*f, tidy_phrase(phrase)) if i == at else f for i, f in enumerate(facts))
    check_facts(qid, new)
    return new


def without_phrasing(facts: Facts, at: int, alt: int) -> Facts:
    """`facts` with phrasing `alt` of fact `at` taken out; a fact left with none goes
    (taking out the first makes the next the preferred one)."""
    out = []
    for i, f in enumerate(facts):
        kept = tuple(p for j, p in enumerate(f) if not (i == at and j == alt))
        if kept:
            out.append(kept)
    return tuple(out)


def facts_said(facts: Facts) -> list[str]:
    """The facts as `spanlab show` prints them: a heading, then one line per fact, its
    phrasings joined by ` | ` (the first preferred); nothing when there are none."""
    if not facts:
        return []
    return ["facts a complete answer states:"] + [
        f"  f{i}  " + " | ".join(fact) for i, fact in enumerate(facts, 1)
    ]

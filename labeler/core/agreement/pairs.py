"""Agreement of two annotators' versions of one query, on characters (§11).

Overlap F1 = characters both marked / the mean of the characters each marked, per
document and summed (a span in another document shares nothing); exact-span agreement
asks for the same documents and offsets, grouped the same way into alternatives (§18:
the group numbers themselves are each annotator's own); abstention agreement for the same
abstain flag, pattern agreement for the same boundary pattern (a version holds its own, §3).
Two abstentions agree fully; one abstention against evidence agrees on nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from labeler.core.store import Version
from labeler.core.text.ranges import Range, covered, shared
from labeler.core.values import Span


def by_doc(spans: Iterable[Span]) -> dict[str, list[Range]]:
    out: dict[str, list[Range]] = defaultdict(list)
    for s in spans:
        out[s.doc].append((s.start, s.end))
    return dict(out)


@dataclass(frozen=True)
class PairAgreement:
    """How two versions of one query agree."""

    query_id: str
    """The query."""
    pair: tuple[str, str]
    """The two annotators, in name order."""
    f1: float
    """Overlap F1 on characters (1.0 when both abstain)."""
    exact: bool
    """The same spans, offsets and documents, in the same groups (or both abstain)."""
    abstain_agree: bool
    """Both abstain, or neither does."""
    a_chars: int
    """Characters the first marked."""
    b_chars: int
    """Characters the second marked."""
    both_chars: int
    """Characters both marked."""
    patterns: tuple[str, str] = ("other", "other")
    """The boundary pattern each chose, in the order of `pair`."""

    @property
    def pattern_agree(self) -> bool:
        """Both chose the same boundary pattern."""
        return self.patterns[0] == self.patterns[1]

    @property
    def agrees(self) -> bool:
        """Full agreement: spans, abstention and pattern."""
        return self.exact and self.abstain_agree and self.pattern_agree


def compare(query_id: str, a: Version, b: Version) -> PairAgreement:
    """The agreement of versions `a` and `b` (given in any order)."""
    if b.annotator < a.annotator:
        a, b = b, a
    left, right = by_doc(a.spans), by_doc(b.spans)
    a_chars = sum(covered(r) for r in left.values())
    b_chars = sum(covered(r) for r in right.values())
    both = sum(shared(r, right[d]) for d, r in left.items() if d in right)
    empty = not a_chars and not b_chars
    f1 = 1.0 if empty else 2.0 * both / (a_chars + b_chars)
    exact = _places(a.spans) == _places(b.spans)
    patterns = (_pattern(a), _pattern(b))
    return PairAgreement(query_id, (a.annotator, b.annotator), f1, exact,
                         a.abstain == b.abstain, a_chars, b_chars, both, patterns)  # fmt: skip


def _pattern(v: Version) -> str:
    return str(getattr(v.boundary, "value", v.boundary or "other"))


Place = tuple[str, int, int]


def _places(spans: Iterable[Span]) -> set[frozenset[Place]]:
    """The spans as groups of places: one set per group, a span without a group alone."""
    groups: dict[object, set[Place]] = defaultdict(set)
    for s in spans:
        place = (s.doc, s.start, s.end)
        groups[place if s.group is None else s.group].add(place)
    return {frozenset(g) for g in groups.values()}


def pairs_of(versions: Mapping[str, Version]) -> list[tuple[Version, Version]]:
    """Every pair of versions of one query, in annotator name order."""
    ordered = [versions[k] for k in sorted(versions)]
    return [(x, y) for i, x in enumerate(ordered) for y in ordered[i + 1 :]]

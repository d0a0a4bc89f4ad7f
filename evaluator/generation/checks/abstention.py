"""Abstention (§23): an answer should abstain exactly when its context lacks the evidence.

It abstains when it states the template's declared phrase (`[generation] abstention`),
normal(phrase) in normal(answer) on whole words, or when the server refused. Evidence is
absent for an abstention query, or when no source holds any evidence group; present when
sources hold every group; partly present is not judged (None): either behaviour is fair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaluator.generation.checks.citations import holding
from evaluator.generation.checks.text import contains, normal
from evaluator.generation.prompt import Source
from labeler.core.values import Span, evidence_groups


def abstains(answer: str, phrase: str, *, refused: bool = False) -> bool:
    return refused or contains(normal(answer), normal(phrase))


def evidence_present(
    sources: Sequence[Source], evidence: Sequence[Span], threshold: float
) -> bool | None:
    """True: the sources hold every evidence group; False: none (or the query has no
    evidence, an abstention query); None: some but not all."""
    held = {i for s in sources for i in holding(s, evidence, threshold)}
    groups = evidence_groups(tuple(evidence))
    found = sum(bool(held.intersection(g)) for g in groups)
    if found == 0:
        return False
    return True if found == len(groups) else None


@dataclass(frozen=True)
class Abstention:
    """abstention_correct = 1 when abstained = not present, else 0; None when the evidence
    is partly present."""

    name = "abstention"
    abstained: bool
    present: bool | None
    """Whether the context held the evidence (`evidence_present`)."""

    @property
    def value(self) -> float | None:
        if self.present is None:
            return None
        return float(self.abstained != self.present)


def abstention(
    answer: str, phrase: str, present: bool | None, *, refused: bool = False
) -> Abstention:
    return Abstention(abstains(answer, phrase, refused=refused), present)

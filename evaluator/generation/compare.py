"""Answers compared like retrieval (§7, §23): per candidate per check, its value, the queries
it gained and lost against the baseline, and the paired statistics retrieval uses.

A query is gained on a check when the candidate's value is better than the baseline's on
that query (higher, or lower for `unsupported` and `repeated_sentences`) and lost when it
is worse; queries where either has no value (not sent, no answer, check not applicable)
are not paired. The bootstrap interval and the exact McNemar p-value are
`metrics.compare`'s own, over the paired differences and the gained/lost counts.

The effect only this layer sees is listed per query: recall at budget rose while
completeness fell (`recall-up-completeness-down`, with `duplicate context` when the
candidate's sources overlap one another), or completeness rose at unchanged recall.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from evaluator.generation.run_file import CHECKS, AnswerRecord
from evaluator.metrics.compare import MIN_DECISIVE, Interval, mcnemar_exact, paired_bootstrap

LOWER_IS_BETTER = frozenset({"unsupported", "repeated_sentences"})
"""Checks that count faults: fewer is better."""
RECALL_UP = "recall-up-completeness-down"
BETTER_AT_EQUAL = "completeness-up-at-equal-recall"
EFFECTS = (RECALL_UP, BETTER_AT_EQUAL)
"""The two effects only answers show (§23)."""


@dataclass(frozen=True)
class CheckComparison:
    """One check, candidate against baseline, over the queries both have a value for."""

    check: str
    baseline: float | None
    """Mean over the baseline's answers that have a value."""
    candidate: float | None
    gained: tuple[str, ...]
    lost: tuple[str, ...]
    pairs: int
    interval: Interval | None
    """Paired bootstrap 95 % interval of candidate − baseline (None without pairs)."""
    mcnemar_p: float | None
    """Exact McNemar of gained vs lost; None below MIN_DECISIVE pairs (not decisive)."""

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.candidate is None:
            return None
        return self.candidate - self.baseline


@dataclass(frozen=True)
class Effect:
    """One query where answers moved against retrieval."""

    query: str
    kind: str
    """One of EFFECTS."""
    recall_delta: float
    completeness_delta: float
    duplicate: bool
    """The candidate's context holds overlapping sources (more than the baseline's)."""


def values(records: Sequence[AnswerRecord], check: str) -> dict[str, float]:
    """Query id -> the check's value, for the records that have one."""
    return {r.query: v for r in records if (v := r.value(check)) is not None}


def mean(found: Mapping[str, float]) -> float | None:
    return statistics.fmean(found.values()) if found else None


def aggregates(records: Sequence[AnswerRecord]) -> dict[str, float | None]:
    """Each check's mean over one candidate's answers (None when none has a value)."""
    return {check: mean(values(records, check)) for check in CHECKS}


def compare_check(
    base: Sequence[AnswerRecord], cand: Sequence[AnswerRecord], check: str,
    *, resamples: int, seed: int,
) -> CheckComparison:  # fmt: skip
    before, after = values(base, check), values(cand, check)
    paired = sorted(before.keys() & after.keys())
    sign = -1.0 if check in LOWER_IS_BETTER else 1.0
    gained = tuple(q for q in paired if sign * (after[q] - before[q]) > 0)
    lost = tuple(q for q in paired if sign * (after[q] - before[q]) < 0)
    diffs = [after[q] - before[q] for q in paired]
    interval = paired_bootstrap(diffs, resamples=resamples, seed=seed) if diffs else None
    p = mcnemar_exact(len(gained), len(lost)) if len(paired) >= MIN_DECISIVE else None
    return CheckComparison(check, mean(before), mean(after), gained, lost, len(paired),
                           interval, p)  # fmt: skip


def effects(
    base: Sequence[AnswerRecord], cand: Sequence[AnswerRecord],
    recall_delta: Mapping[str, float | None],
) -> tuple[Effect, ...]:  # fmt: skip
    """The queries whose completeness moved against their recall at budget."""
    b = {r.query: r for r in base}
    out = []
    for r in cand:
        other, moved = b.get(r.query), recall_delta.get(r.query)
        now, was = r.value("completeness"), None if other is None else other.value("completeness")
        if other is None or moved is None or now is None or was is None or now == was:
            continue
        duplicate = r.overlapping > other.overlapping
        if moved > 0 and now < was:
            out.append(Effect(r.query, RECALL_UP, moved, now - was, duplicate))
        elif moved == 0 and now > was:
            out.append(Effect(r.query, BETTER_AT_EQUAL, moved, now - was, duplicate))
    return tuple(out)


HAD = ("answered", "refused")
"""The outcomes that are an answer (a refusal is one, checked as an abstention)."""


def failure_kinds(records: Sequence[AnswerRecord]) -> dict[str, int]:
    """Failure kind -> prompts without an answer (`not asked` included), most first."""
    found = Counter(r.outcome for r in records if r.outcome not in HAD)
    return dict(sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))


def no_answer(name: str, records: Sequence[AnswerRecord]) -> str | None:
    """`markdown-200 had no answer: timeout 40, bad JSON 2` when `name` sent prompts and
    none was answered (§23: a stage that measured nothing); None otherwise."""
    if not records or any(r.outcome in HAD for r in records):
        return None
    kinds = ", ".join(f"{k} {n:,}" for k, n in failure_kinds(records).items())
    return f"{name} had no answer: {kinds}"


@dataclass(frozen=True)
class CandidateAnswers:
    """One candidate's answers in figures: each check's mean, and what asking gave."""

    name: str
    values: Mapping[str, float | None]
    """Check -> mean over its answers."""
    sent: int
    """Prompts sent (cached ones included)."""
    answered: int
    """Answers had (refusals included)."""
    refused: int
    failed: int
    """Prompts without an answer (any failure, `not asked` included)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"values": dict(self.values)}


def candidate_answers(name: str, records: Sequence[AnswerRecord]) -> CandidateAnswers:
    answered = [r for r in records if r.outcome in HAD]
    return CandidateAnswers(name, aggregates(answered), len(records), len(answered),
                            sum(r.outcome == "refused" for r in records),
                            len(records) - len(answered))  # fmt: skip


@dataclass(frozen=True)
class AnswerComparison:
    """A candidate's answers against the baseline's: every check, and the effects."""

    candidate: str
    checks: Mapping[str, CheckComparison]
    effects: tuple[Effect, ...]
    recall_delta: float | None = None
    """Mean evidence recall at budget, candidate − baseline (retrieval's own comparison)."""
    overlapping: tuple[float, float] = (0.0, 0.0)
    """Mean pairs of overlapping sources per prompt: baseline's, candidate's."""

    @property
    def recall_up_completeness_down(self) -> tuple[Effect, ...]:
        return tuple(e for e in self.effects if e.kind == RECALL_UP)

    @property
    def worse_at_higher_recall(self) -> bool:
        """The candidate's recall at budget rose while its completeness fell (overall)."""
        delta = self.checks["completeness"].delta
        return (self.recall_delta or 0.0) > 0 and delta is not None and delta < 0

    @property
    def duplicate_context(self) -> bool:
        """Its sources overlap one another more than the baseline's do."""
        return self.overlapping[1] > self.overlapping[0]


def compare_answers(
    base: Sequence[AnswerRecord], cand: Sequence[AnswerRecord], name: str,
    recall_delta: Mapping[str, float | None], *, resamples: int, seed: int,
    recall: float | None = None,
) -> AnswerComparison:  # fmt: skip
    """`recall_delta`: per query, recall at budget candidate − baseline; `recall`: the same
    over every query (the flag of a candidate whose answers got worse as recall rose)."""
    return AnswerComparison(
        name,
        {c: compare_check(base, cand, c, resamples=resamples, seed=seed) for c in CHECKS},
        effects(base, cand, recall_delta),
        recall,
        (overlap(base), overlap(cand)),
    )


def overlap(records: Sequence[AnswerRecord]) -> float:
    """Mean overlapping source pairs per prompt (0 without prompts)."""
    return statistics.fmean(r.overlapping for r in records) if records else 0.0

"""Baseline versus candidate, query by query (§7): what was gained, lost, and why.

Works on two `CandidateResult`s only (ids and numbers, no text), so a run can be
re-compared from `run.json`. The significance figures are exact or seeded: a report
re-run on the same results prints the same interval and p-value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

import numpy as np

from evaluator.metrics.causes import Cause as Cause  # re-exported: compare's vocabulary
from evaluator.metrics.causes import query_cause
from evaluator.metrics.evaluate import DIMENSIONS, CandidateResult, group_ids
from evaluator.metrics.registry import ABSTENTION_TOP1, HIT, RECALL

MIN_DECISIVE = 30
"""Answerable queries below which the set is too small to be decisive (§7)."""

_BOOTSTRAP_CELLS = 4_000_000
"""Most random numbers drawn at once, to bound memory on large label sets."""

_FEW_VALUES = 256
"""Up to this many distinct differences, resample through pooled multinomial counts."""


class Status(StrEnum):
    GAINED = "gained"
    LOST = "lost"
    UNCHANGED_HIT = "unchanged-hit"
    UNCHANGED_MISS = "unchanged-miss"


@dataclass(frozen=True)
class QueryChange:
    """One query, baseline against candidate."""

    query: str
    """Query id."""
    status: Status | None
    """gained, lost, unchanged-hit or unchanged-miss; None when not answerable."""
    recall_delta: float | None
    """evidence_recall@k, candidate minus baseline (answerable queries)."""
    top1_delta: float | None
    """abstention_top1, candidate minus baseline (abstention queries)."""
    cause: Cause | None
    """For lost queries: the deepest cause among its spans (split, cut, crowded, disappeared)."""


@dataclass(frozen=True)
class StatusCounts:
    gained: int = 0
    lost: int = 0
    unchanged_hit: int = 0
    unchanged_miss: int = 0

    @classmethod
    def of(cls, changes: Iterable[QueryChange]) -> StatusCounts:
        statuses = [c.status for c in changes]
        return cls(*(statuses.count(s) for s in Status))

    @property
    def answerable(self) -> int:
        return self.gained + self.lost + self.unchanged_hit + self.unchanged_miss


@dataclass(frozen=True)
class GroupComparison:
    """Counts and aggregate deltas over a set of queries (all, or one breakdown cell)."""

    queries: int
    """Queries in the group."""
    counts: StatusCounts
    """Gained, lost and unchanged among its answerable queries."""
    deltas: dict[str, float | None]
    """Measure -> candidate aggregate minus baseline aggregate (None if either is)."""


@dataclass(frozen=True)
class Interval:
    """A paired bootstrap percentile interval of a mean difference."""

    mean_difference: float
    """Mean of candidate minus baseline over the paired queries."""
    low: float
    """2.5th percentile of the resampled means."""
    high: float
    """97.5th percentile of the resampled means."""
    pairs: int
    """Queries resampled."""
    resamples: int
    """Bootstrap resamples drawn."""
    seed: int
    """Seed of the numpy Generator, so the interval is reproducible."""


@dataclass(frozen=True)
class Significance:
    answerable: int
    """Answerable queries compared."""
    decisive: bool
    """Whether there are at least MIN_DECISIVE answerable queries."""
    reason: str | None
    """Why the set is not decisive, in a report's words."""
    mcnemar_p: float | None
    """Exact two-sided McNemar p-value of gained vs lost (decisive sets only)."""
    recall_interval: Interval | None
    """Bootstrap 95% interval of the evidence_recall@k difference."""


@dataclass(frozen=True)
class Comparison:
    """A candidate against the baseline; JSON-ready through `to_json()`."""

    baseline: str
    """Baseline candidate's name."""
    candidate: str
    """Compared candidate's name."""
    queries: dict[str, QueryChange]
    """Query id -> its change."""
    overall: GroupComparison
    """Every query."""
    breakdowns: dict[str, dict[str, GroupComparison]]
    """Dimension (slice, boundary, doc) -> key -> group."""
    significance: Significance
    """Whether the difference is more than noise."""

    def with_status(self, status: Status) -> list[QueryChange]:
        return [c for c in self.queries.values() if c.status == status]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def compare(
    baseline: CandidateResult,
    candidate: CandidateResult,
    *,
    resamples: int = 10_000,
    seed: int = 0,
    same_settings: bool = True,
) -> Comparison:
    """Compare `candidate` with `baseline`; both measured on the same queries (and, unless
    `same_settings` is False — run against run, §16 — with the same settings)."""
    _check_comparable(baseline, candidate, same_settings)
    changes = {qid: _change(qid, baseline, candidate) for qid in baseline.per_query}
    overall = GroupComparison(
        len(changes),
        StatusCounts.of(changes.values()),
        _deltas(baseline.aggregates, candidate.aggregates),
    )
    return Comparison(
        baseline=baseline.name,
        candidate=candidate.name,
        queries=changes,
        overall=overall,
        breakdowns=_breakdowns(baseline, candidate, changes),
        significance=_significance(changes.values(), resamples, seed),
    )


def _check_comparable(
    baseline: CandidateResult, candidate: CandidateResult, same_settings: bool
) -> None:
    if baseline.per_query.keys() != candidate.per_query.keys():
        raise ValueError(f"{baseline.name!r} and {candidate.name!r} were run on different queries")
    if same_settings and baseline.settings != candidate.settings:
        raise ValueError(f"{baseline.name!r} and {candidate.name!r} used different settings")


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _delta(before: object, after: object) -> float | None:
    a, b = _number(before), _number(after)
    return None if a is None or b is None else b - a


def _change(qid: str, baseline: CandidateResult, candidate: CandidateResult) -> QueryChange:
    before, after = baseline.per_query[qid], candidate.per_query[qid]
    top1 = _delta(before[ABSTENTION_TOP1], after[ABSTENTION_TOP1])
    if not baseline.facets[qid].answerable:
        return QueryChange(qid, None, None, top1, None)
    was, now = bool(before[HIT]), bool(after[HIT])
    status = _status(was, now)
    cause = query_cause(candidate.span_causes.get(qid, ())) if status == Status.LOST else None
    return QueryChange(qid, status, _delta(before[RECALL], after[RECALL]), top1, cause)


def _status(was: bool, now: bool) -> Status:
    if was != now:
        return Status.GAINED if now else Status.LOST
    return Status.UNCHANGED_HIT if now else Status.UNCHANGED_MISS


def _deltas(
    before: Mapping[str, float | None], after: Mapping[str, float | None]
) -> dict[str, float | None]:
    return {name: _delta(before[name], after.get(name)) for name in before}


def _breakdowns(
    baseline: CandidateResult, candidate: CandidateResult, changes: Mapping[str, QueryChange]
) -> dict[str, dict[str, GroupComparison]]:
    result: dict[str, dict[str, GroupComparison]] = {}
    for dim in DIMENSIONS:
        result[dim] = {}
        for key, ids in group_ids(baseline.facets, dim).items():
            before = baseline.breakdowns[dim][key].metrics
            after = candidate.breakdowns[dim][key].metrics
            counts = StatusCounts.of(changes[i] for i in ids)
            result[dim][key] = GroupComparison(len(ids), counts, _deltas(before, after))
    return result


def _significance(changes: Iterable[QueryChange], resamples: int, seed: int) -> Significance:
    answerable = [c for c in changes if c.status is not None]
    counts = StatusCounts.of(answerable)
    diffs = [c.recall_delta for c in answerable if c.recall_delta is not None]
    interval = paired_bootstrap(diffs, resamples=resamples, seed=seed) if diffs else None
    n = len(answerable)
    if n < MIN_DECISIVE:
        reason = f"too small to be decisive ({n} answerable queries < {MIN_DECISIVE})"
        return Significance(n, False, reason, None, interval)
    return Significance(n, True, None, mcnemar_exact(counts.gained, counts.lost), interval)


def mcnemar_exact(gained: int, lost: int) -> float:
    """Two-sided exact McNemar: 2 · P(X ≤ min(b, c)), X ~ Binomial(b + c, 1/2), capped at 1."""
    n = gained + lost
    tail = sum(math.comb(n, i) for i in range(min(gained, lost) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def paired_bootstrap(diffs: Sequence[float], *, resamples: int = 10_000, seed: int = 0) -> Interval:
    """Percentile 95% interval of mean(diffs), resampling the query pairs with replacement."""
    data = np.asarray(diffs, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    values, counts = np.unique(data, return_counts=True)
    few = len(values) <= _FEW_VALUES
    batch = max(1, _BOOTSTRAP_CELLS // (len(values) if few else len(data)))
    for lo in range(0, resamples, batch):
        size = min(batch, resamples - lo)
        if few:
            means[lo : lo + size] = _pooled_means(values, counts, size, rng)
        else:
            means[lo : lo + size] = data[rng.integers(0, len(data), (size, len(data)))].mean(1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Interval(float(data.mean()), float(low), float(high), len(data), resamples, seed)


def _pooled_means(
    values: np.ndarray, counts: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Resampling n pairs is drawing multinomial counts over them; pairs with equal
    differences pooled (recall deltas take a handful of values), the same distribution
    costs a few numbers per resample instead of n."""
    n = int(counts.sum())
    return np.asarray(rng.multinomial(n, counts / n, size=size) @ values / n)

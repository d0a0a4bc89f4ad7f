"""Release gates (§7, §9, §17): limits a candidate must respect against the baseline.

Each gate reads one number from the comparison — overall, within a slice or within a
boundary pattern — or a cost ratio, so a broken gate can be reported exactly: which
candidate, which scope, limit and value (a `GateRecord`, as run.json keeps it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from evaluator.candidates import Gates
from evaluator.metrics import CandidateResult
from evaluator.metrics.compare import Comparison, GroupComparison
from evaluator.metrics.registry import (
    ABSTENTION_TOP1,
    CHUNK_COUNT,
    DUPLICATES,
    PROMPT_TOKENS,
    RECALL,
)
from evaluator.runs.gate_text import unavailable
from evaluator.runs.model_parts import GateRecord

COST_FIGURES = {
    "max_chunk_count_ratio": CHUNK_COUNT,
    "max_index_bytes_ratio": "vector_bytes",
    "max_latency_p95_ratio": "query_latency_p95_ms",
}
"""Ratio gates on a per-candidate figure: the same in every scope."""
DELTAS = {
    "min_recall_delta": RECALL,
    "max_duplicate_pairs_delta": DUPLICATES,
    "max_abstention_top1_delta": ABSTENTION_TOP1,
}
"""Gates on a measure's difference from the baseline within the scope."""
RATIOS = (*COST_FIGURES, "max_prompt_tokens_ratio")
"""Gates on a cost divided by the baseline's: one that a run lacks fails, said (§17)."""


@dataclass(frozen=True)
class Costs:
    """What the cost gates read beside the comparisons (§17)."""

    figures: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    """Candidate -> index figures (chunk count, vector bytes, latency p95)."""
    results: Mapping[str, CandidateResult] = field(default_factory=dict)
    """Candidate -> its measures on the deciding basis, for prompt tokens per scope."""


def _ratio(mine: float | None, theirs: float | None) -> float | None:
    return None if mine is None or not theirs else mine / theirs


def _prompt(result: CandidateResult | None, scope: str) -> float | None:
    if result is None:
        return None
    if scope == "overall":
        return result.aggregates.get(PROMPT_TOKENS)
    dim, _, key = scope.partition(":")
    group = result.breakdowns.get("boundary" if dim == "pattern" else dim, {}).get(key)
    return None if group is None else group.metrics.get(PROMPT_TOKENS)


def _value(gate: str, group: GroupComparison, comp: Comparison, scope: str,
           costs: Costs) -> float | None:  # fmt: skip
    if gate == "max_lost":
        return float(group.counts.lost)
    if gate in DELTAS:
        return group.deltas.get(DELTAS[gate])
    if gate in RATIOS:
        return _ratio(*_sides(gate, comp, scope, costs))
    raise ValueError(f"unknown gate {gate!r}")


def _sides(gate: str, comp: Comparison, scope: str,
           costs: Costs) -> tuple[float | None, float | None]:  # fmt: skip
    """A ratio gate's figure for the candidate and for the baseline it is divided by."""
    if gate == "max_prompt_tokens_ratio":
        return (_prompt(costs.results.get(comp.candidate), scope),
                _prompt(costs.results.get(comp.baseline), scope))  # fmt: skip
    figure = COST_FIGURES[gate]
    return (costs.figures.get(comp.candidate, {}).get(figure),
            costs.figures.get(comp.baseline, {}).get(figure))  # fmt: skip


def _why_not(gate: str, comp: Comparison, scope: str, costs: Costs) -> str | None:
    """Why a ratio gate has no value though its scope has queries (a run lacks the figure,
    or the baseline's is 0); None for any other gate, or one that has a value."""
    if gate not in RATIOS:
        return None
    mine, theirs = _sides(gate, comp, scope, costs)
    if mine is None:
        return unavailable(gate, comp.candidate, zero=False)
    if not theirs:
        return unavailable(gate, comp.baseline, zero=theirs is not None)
    return None


def _holds(gate: str, value: float | None, limit: float) -> bool:
    if value is None:
        return True
    return value >= limit if gate.startswith("min_") else value <= limit


def _scopes(gates: Gates, comp: Comparison) -> list[tuple[str, GroupComparison | None,
                                                          dict[str, float]]]:  # fmt: skip
    scopes: list[tuple[str, GroupComparison | None, dict[str, float]]] = [
        ("overall", comp.overall, gates.overall)
    ]
    for kind, dim, tables in (("slice", "slice", gates.slices),
                              ("pattern", "boundary", gates.patterns)):  # fmt: skip
        groups = comp.breakdowns.get(dim, {})
        for name, limits in sorted(tables.items()):
            scopes.append((f"{kind}:{name}", groups.get(name), limits))
    return scopes


def check(
    gates: Gates,
    comparisons: Mapping[str, Comparison],
    chunk_counts: Mapping[str, int],
    costs: Costs | None = None,
) -> list[GateRecord]:
    """Every gate for every compared candidate, in a stable order. A gate whose scope has
    no query passes (`no data`); a cost gate that a run lacks the figure for fails, saying
    why (fail closed: a missing latency never reads as a kept limit)."""
    given = costs or Costs()
    names = set(given.figures) | set(chunk_counts)
    figures = {n: {**given.figures.get(n, {}),
                   **({CHUNK_COUNT: chunk_counts[n]} if n in chunk_counts else {})}
               for n in names}  # fmt: skip
    costs = Costs(figures, given.results)
    results: list[GateRecord] = []
    for name, comp in comparisons.items():
        for scope, group, limits in _scopes(gates, comp):
            for gate, limit in limits.items():
                value = None if group is None else _value(gate, group, comp, scope, costs)
                why = None if group is None else _why_not(gate, comp, scope, costs)
                held = why is None and _holds(gate, value, limit)
                results.append(GateRecord(name, scope, gate, limit, value, held, why))
    return results

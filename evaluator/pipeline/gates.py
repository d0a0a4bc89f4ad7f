"""Release gates (§7, §9): limits a candidate must respect against the baseline.

Each gate reads one number from the comparison — overall or within a slice — so a
broken gate can be reported exactly: which candidate, which scope, limit and value (a
`GateRecord`, as run.json keeps it).
"""

from __future__ import annotations

from collections.abc import Mapping

from evaluator.candidates import Gates
from evaluator.metrics.compare import Comparison, GroupComparison
from evaluator.metrics.registry import ABSTENTION_TOP1, DUPLICATES, RECALL
from evaluator.runs.model_parts import GateRecord


def _value(gate: str, group: GroupComparison, chunk_ratio: float | None) -> float | None:
    if gate == "max_lost":
        return float(group.counts.lost)
    if gate == "min_recall_delta":
        return group.deltas.get(RECALL)
    if gate == "max_chunk_count_ratio":
        return chunk_ratio
    if gate == "max_duplicate_pairs_delta":
        return group.deltas.get(DUPLICATES)
    if gate == "max_abstention_top1_delta":
        return group.deltas.get(ABSTENTION_TOP1)
    raise ValueError(f"unknown gate {gate!r}")


def _holds(gate: str, value: float | None, limit: float) -> bool:
    if value is None:
        return True
    return value >= limit if gate.startswith("min_") else value <= limit


def check(
    gates: Gates, comparisons: Mapping[str, Comparison], chunk_counts: Mapping[str, int]
) -> list[GateRecord]:
    """Every gate for every compared candidate, in a stable order."""
    results: list[GateRecord] = []
    for name, comp in comparisons.items():
        base = chunk_counts.get(comp.baseline) or 0
        ratio = chunk_counts[name] / base if base else None
        scopes: list[tuple[str, GroupComparison | None, dict[str, float]]] = [
            ("overall", comp.overall, gates.overall)
        ]
        slice_groups = comp.breakdowns.get("slice", {})
        for slice_name, limits in sorted(gates.slices.items()):
            scopes.append((f"slice:{slice_name}", slice_groups.get(slice_name), limits))
        for scope, group, limits in scopes:
            for gate, limit in limits.items():
                value = None if group is None else _value(gate, group, ratio)
                results.append(
                    GateRecord(name, scope, gate, limit, value, _holds(gate, value, limit))
                )
    return results

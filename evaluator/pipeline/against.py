"""`gate --against RUN` (§16): a new run's candidates gated against a stored run's
candidates of the same name (main's run.json, kept as a CI artifact), with the same gates
as against the baseline candidate.

Each pair is compared by `runs.diff` on the shared queries; the gates read the comparison
and the costs (each run's index figures, prompt tokens on the shared queries) exactly as
`gates.check` reads baseline against candidate: a cost the stored run lacks fails, said.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from evaluator.candidates import Gates
from evaluator.metrics import CandidateResult
from evaluator.metrics.compare import Comparison
from evaluator.pipeline.gates import Costs, check
from evaluator.runs.diff import DiffError, RunDiff, diff_runs
from evaluator.runs.model import RunFile
from evaluator.runs.model_parts import GateRecord


def gate_against(
    new: RunFile, stored: RunFile, gates: Gates, *, shared_only: bool = False
) -> tuple[list[GateRecord], list[RunDiff]]:
    """Every gate for every candidate both runs hold, stored run's as the baseline; and
    each pair's comparison, for the job summary."""
    names = [n for n in new.names if n in stored.names]
    if not names:
        raise DiffError(f"run {new.id} and the stored run {stored.id} hold no candidate "
                        "name in common: nothing to gate against")  # fmt: skip
    comparisons: dict[str, Comparison] = {}
    figures: dict[str, Mapping[str, float | None]] = {}
    results: dict[str, CandidateResult] = {}
    diffs = []
    for name in names:
        before = f"{stored.id}:{name}"
        diffs.append(diff_runs(stored, new, name, name, shared_only=shared_only))
        comparisons[name] = replace(diffs[-1].comparison, baseline=before)
        figures[before], figures[name] = stored.candidate(name).metrics, new.candidate(name).metrics
        results[before], results[name] = diffs[-1].sides  # on the shared queries
    return check(gates, comparisons, {}, Costs(figures, results)), diffs

"""Run against run at the context budget (§16, §17): each side's recall and hit at its own
run's budget, rebuilt from run.json alone, so `diff` shows both bases as eval does.

run.json keeps per query each group's first-match rank (on what is sent, §18) and how many
ranks the budget sends (`budget_cut`). Under the `chunk` rule a group is matched at budget
exactly when its first-match rank is within the cut (merged windows only grow), so recall
and hit at budget follow; `trec`'s budget files rest on the same fact and are tested with
ranx against the run's own figures. Under `union` (split evidence counts) they do not
follow, and a run written before `budget_cut` was kept has no cut: both say why instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluator.metrics import MEASURES, CandidateResult, MetricSettings, QueryFacets
from evaluator.metrics.evaluate import PerQuery, breakdowns, reduce_all
from evaluator.metrics.registry import ABSTENTION_TOP1, HIT, RECALL
from evaluator.runs.model import RunFile
from evaluator.runs.model_queries import QueryRecord

AT_BUDGET = (RECALL, HIT)
"""The measures `diff` rebuilds at budget."""


def why_not(run: RunFile, name: str, ids: Sequence[str]) -> str | None:
    """Why candidate `name` of `run` cannot be rebuilt at budget; None when it can."""
    if run.budget is None:
        return f"run {run.id} was written before context budgets were kept"
    if run.match != "chunk":
        return f"run {run.id} matches under {run.match}: its figures at budget are not per query"
    if any(run.queries[q].candidates[name].budget_cut is None for q in ids):
        return f"run {run.id} was written before each query's budget cut was kept"
    return None


def group_matched(entry: QueryRecord, name: str, cut: int) -> list[bool]:
    """Per evidence group (§18: alternatives are one), whether one of its spans is first
    matched within the top `cut` ranks."""
    ranks = entry.candidates[name].first_match_ranks or ()
    found: dict[object, bool] = {}
    for n, ref in enumerate(entry.evidence):
        key: object = ("alone", n) if ref.group is None else ref.group
        rank = ranks[n] if n < len(ranks) else None
        found[key] = found.get(key, False) or (rank is not None and rank <= cut)
    return list(found.values())


def rebuild_at_budget(run: RunFile, name: str, ids: Sequence[str]) -> CandidateResult:
    """Candidate `name` of `run` at its run's budget on the queries `ids`: recall and hit
    (undefined for abstention queries); call `why_not` first."""
    per_query: PerQuery = {}
    facets: dict[str, QueryFacets] = {}
    for qid in ids:
        entry = run.queries[qid]
        facets[qid] = entry.facets
        cut = entry.candidates[name].budget_cut or 0
        held = group_matched(entry, name, cut) if entry.answerable else []
        top1 = entry.candidates[name].values.get(ABSTENTION_TOP1)  # the first rank's: as at k
        per_query[qid] = {
            RECALL: sum(held) / len(held) if held else None,
            HIT: all(held) if held else None,
            ABSTENTION_TOP1: top1,
        }
    measures = [m for m in MEASURES if m.name in (*AT_BUDGET, ABSTENTION_TOP1)]
    settings = MetricSettings.of(run.manifest.settings)
    return CandidateResult(name, settings, tuple(m.name for m in measures), facets, per_query,
                           reduce_all(measures, per_query, per_query),
                           breakdowns(measures, per_query, facets), {})  # fmt: skip

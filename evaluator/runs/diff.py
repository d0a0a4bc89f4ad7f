"""Run against run (§16): one candidate of run A against one of run B, on the queries both
runs share, with the same paired comparison as baseline against candidate (§7).

Each side is rebuilt as a `CandidateResult` from run.json alone (values, facets, causes;
aggregates recomputed on the shared queries), then `metrics.compare` pairs them: gained,
lost, deltas, the bootstrap interval and McNemar are the ones every report already prints.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from evaluator.generation.compare import AnswerComparison
from evaluator.metrics import MEASURES, CandidateResult, MetricSettings, QueryFacets
from evaluator.metrics.base import Measure
from evaluator.metrics.compare import Comparison, compare
from evaluator.metrics.evaluate import PerQuery, SpanCauses, breakdowns, reduce_all
from evaluator.metrics.registry import RECALL, RULED
from evaluator.runs import index as runs_index
from evaluator.runs.diff_budget import rebuild_at_budget, why_not
from evaluator.runs.diff_generation import answers_diff, with_answers
from evaluator.runs.model import FILE_NAME, RunFile, read_run, read_run_file
from labeler.core.errors import SpanlabError


class DiffError(SpanlabError):
    """Two runs that cannot be compared as asked (different corpora, nothing shared)."""


@dataclass(frozen=True)
class RunDiff:
    """One candidate of run A against one of run B on their shared queries."""

    a: RunFile
    """The run compared from (main's, say)."""
    b: RunFile
    """The run compared to (the pull request's)."""
    candidate_a: str
    """The candidate of A."""
    candidate_b: str
    """The candidate of B."""
    shared: tuple[str, ...]
    """Query ids both runs hold with the same evidence, in A's order."""
    left_out: tuple[str, ...]
    """Query ids only one run holds, or holds with other evidence."""
    partial: bool
    """Compared on the shared part although corpora or label sets differ (asked for)."""
    comparison: Comparison
    """A's candidate as the baseline, B's as the candidate, each under its run's rule."""
    other: Comparison | None
    """The same under each run's other rule; None when either run lacks it."""
    settings: tuple[tuple[str, str, str], ...]
    """(setting, A's value, B's value) for every setting that differs."""
    manifest: tuple[tuple[str, str, str], ...]
    """(what, A's, B's) for hashes, model and versions that differ."""
    sides: tuple[CandidateResult, CandidateResult]
    """A's and B's candidate as rebuilt on the shared queries, under each run's rule."""
    other_sides: tuple[CandidateResult, CandidateResult] | None
    """The same under each run's other rule."""
    budget: Comparison | None = None
    """Recall and hit at each run's own budget (`diff_budget`); None when not derivable."""
    budget_sides: tuple[CandidateResult, CandidateResult] | None = None
    """A's and B's candidate at budget, as rebuilt."""
    no_budget: str | None = None
    """Why there is no comparison at budget (None when there is one)."""
    answers: AnswerComparison | None = None
    """A's answers as the baseline, B's as the candidate (§23); None when not compared."""
    no_answers: str | None = None
    """Why answers are not compared, when one run holds them; None otherwise."""


def diff_runs(
    a: RunFile, b: RunFile, candidate_a: str, candidate_b: str, *, shared_only: bool = False
) -> RunDiff:
    """Compare candidate `candidate_a` of `a` with `candidate_b` of `b`; refuses runs on other
    corpora or label sets unless `shared_only`, and runs that share no query."""
    a.candidate(candidate_a), b.candidate(candidate_b)  # an unknown name is a RunFileError
    moved = _moved(a, b)
    if moved and not shared_only:
        what, ha, hb = moved[0]
        plural = {"corpus": "corpora", "label set": "label sets"}[what]
        raise DiffError(f"runs {a.id} and {b.id} were made on different {plural}: {ha} and {hb}",
                        hint="pass --shared to compare the queries both runs hold, saying so",
                        details=[f"{w}: {x} → {y}" for w, x, y in moved])  # fmt: skip
    shared = shared_queries(a, b)
    if not shared:
        raise DiffError(f"runs {a.id} and {b.id} share no query with the same evidence")
    left = tuple(q for q in [*a.queries, *b.queries] if q not in shared)
    ra, rb = rebuild(a, candidate_a, shared), rebuild(b, candidate_b, shared)
    comp = _compare(a, ra, rb)
    other, other_sides = None, None
    if a.both_rules and b.both_rules:
        other_sides = (rebuild(a, candidate_a, shared, declared=False),
                       rebuild(b, candidate_b, shared, declared=False))  # fmt: skip
        other = _compare(a, *other_sides)
    changed = (
        *splitter_changes(a, b, candidate_a, candidate_b),
        *treatment_changes(a, b, candidate_a, candidate_b),
        *manifest_changes(a, b),
    )
    why = why_not(a, candidate_a, shared) or why_not(b, candidate_b, shared)
    sides = None if why else (rebuild_at_budget(a, candidate_a, shared),
                              rebuild_at_budget(b, candidate_b, shared))  # fmt: skip
    at_budget = None if sides is None else _compare(a, *sides)
    basis = at_budget or comp
    recall = {q: c.recall_delta for q, c in basis.queries.items()}
    answers, no_answers = answers_diff(a, b, candidate_a, candidate_b, shared, recall,
                                       basis.overall.deltas.get(RECALL))  # fmt: skip
    return RunDiff(a, b, candidate_a, candidate_b, shared, tuple(dict.fromkeys(left)),
                   bool(moved), comp, other, setting_changes(a, b), changed,
                   (ra, rb), other_sides, at_budget, sides, why, answers, no_answers)  # fmt: skip


def _compare(a: RunFile, base: CandidateResult, cand: CandidateResult) -> Comparison:
    s = a.manifest.settings
    return compare(base, cand, resamples=s.resamples, seed=s.seed, same_settings=False)


def _moved(a: RunFile, b: RunFile) -> list[tuple[str, str, str]]:
    pairs = [("corpus", a.manifest.corpus_hash, b.manifest.corpus_hash),
             ("label set", a.manifest.label_set_hash, b.manifest.label_set_hash)]  # fmt: skip
    return [p for p in pairs if p[1] != p[2]]


def shared_queries(a: RunFile, b: RunFile) -> tuple[str, ...]:
    """Ids both runs hold with the same evidence, abstention mark, pattern and slices."""
    return tuple(
        qid
        for qid, qa in a.queries.items()
        if (qb := b.queries.get(qid)) is not None
        and (qa.evidence, qa.abstain, qa.boundary, qa.slices)
        == (qb.evidence, qb.abstain, qb.boundary, qb.slices)
    )


def rebuild(
    run: RunFile, name: str, ids: Sequence[str], *, declared: bool = True
) -> CandidateResult:
    """Candidate `name` of `run` as measured, on the queries `ids` only, under the run's
    declared rule or its other one; aggregates and breakdowns recomputed on those queries."""
    per_query: PerQuery = {}
    causes: SpanCauses = {}
    facets: dict[str, QueryFacets] = {}
    for qid in ids:
        entry = run.queries[qid]
        result = entry.candidates[name]
        picked = result if declared else result.other
        if picked is None:
            raise DiffError(f"run {run.id} holds no {run.other_match} rule for query {qid}")
        per_query[qid] = dict(picked.values)
        causes[qid] = picked.span_causes
        facets[qid] = entry.facets
    measures = _measures(MEASURES if declared else RULED, per_query)
    settings = MetricSettings.of(run.manifest.settings)
    if not declared:
        settings = replace(settings, match=run.other_match)
    return CandidateResult(name, settings, tuple(m.name for m in measures), facets, per_query,
                           reduce_all(measures, per_query, per_query),
                           breakdowns(measures, per_query, facets), causes)  # fmt: skip


def _measures(candidates: Sequence[Measure], per_query: PerQuery) -> list[Measure]:
    """The measures every query carries a value of (a run from an older spanlab may lack one)."""
    return [m for m in candidates if all(m.name in values for values in per_query.values())]


def setting_changes(a: RunFile, b: RunFile) -> tuple[tuple[str, str, str], ...]:
    sa, sb = a.manifest.settings, b.manifest.settings
    return tuple(
        (f.name, str(getattr(sa, f.name)), str(getattr(sb, f.name)))
        for f in fields(sa)
        if getattr(sa, f.name) != getattr(sb, f.name)
    )


def splitter_changes(
    a: RunFile, b: RunFile, name_a: str, name_b: str
) -> tuple[tuple[str, str, str], ...]:
    """(`splitter size`, A's, B's) for each field of how the two candidates cut that differs."""
    fa = a.candidate(name_a).spec.fingerprint_fields()
    fb = b.candidate(name_b).spec.fingerprint_fields()
    return tuple(
        (f"splitter {key}", str(fa.get(key)), str(fb.get(key)))
        for key in dict.fromkeys([*fa, *fb])
        if fa.get(key) != fb.get(key)
    )


def treatment_changes(
    a: RunFile, b: RunFile, name_a: str, name_b: str
) -> tuple[tuple[str, str, str], ...]:
    """(`treatment mmr`, A's, B's) for each retrieval treatment (§19) that differs, and the
    candidate's own retriever when it differs (the settings' is a setting change)."""
    ia, ib = a.candidate(name_a).index, b.candidate(name_b).index
    ta, tb = _treatment(ia), _treatment(ib)
    pairs = [(f"treatment {key}", _shown(ta.get(key)), _shown(tb.get(key)))
             for key in dict.fromkeys([*ta, *tb])]  # fmt: skip
    ra = str(ia.get("retriever", a.manifest.settings.retriever))
    rb = str(ib.get("retriever", b.manifest.settings.retriever))
    if ra != rb and a.manifest.settings.retriever == b.manifest.settings.retriever:
        pairs.append(("candidate retriever", ra, rb))
    return tuple(p for p in pairs if p[1] != p[2])


def _treatment(index: Mapping[str, Any]) -> Mapping[str, Any]:
    found = index.get("treatment")
    return found if isinstance(found, dict) else {}


def _shown(value: Any) -> str:
    return "none" if value is None else json.dumps(value, sort_keys=True)


def manifest_changes(a: RunFile, b: RunFile) -> tuple[tuple[str, str, str], ...]:
    ma, mb = a.manifest, b.manifest
    pairs = [
        ("corpus", ma.corpus_hash, mb.corpus_hash),
        ("label set", ma.label_set_hash, mb.label_set_hash),
        ("candidates file", f"{ma.candidates_file.path} {ma.candidates_file.hash}",
         f"{mb.candidates_file.path} {mb.candidates_file.hash}"),
        ("embedding", str(ma.embedding.get("fingerprint", ma.embedding.get("name"))),
         str(mb.embedding.get("fingerprint", mb.embedding.get("name")))),
        *((f"version {k}", str(ma.versions.get(k)), str(mb.versions.get(k)))
          for k in sorted(set(ma.versions) | set(mb.versions))),
    ]  # fmt: skip
    return tuple(p for p in pairs if p[1] != p[2])


def candidate_pairs(
    a: RunFile, b: RunFile, candidate: str | None, against: str | None
) -> list[tuple[str, str]]:
    """Which candidates to compare: a named pair, one name in both, or every shared name."""
    if against is not None:
        return [(candidate or a.baseline.name, against)]
    if candidate is not None:
        return [(candidate, candidate)]
    names = [n for n in a.names if n in b.names]
    if not names:
        raise DiffError(
            f"runs {a.id} and {b.id} have no candidate name in common",
            hint="name a pair: --candidate NAME_IN_A --against-candidate NAME_IN_B",
        )
    return [(n, n) for n in names]


def load_run_ref(runs_dir: Path, ref: str) -> RunFile:
    """The run `ref` names: a run.json, a run folder, an id, a unique id prefix or `latest`;
    a folder that holds no run is a RunFileError naming it (exit 2, never a traceback). A
    run.json named by its path is the user's own choice and read through a link (a CI
    artifact's); a run folder's is not (§20: a member may have put the link there)."""
    path = Path(ref)
    if path.is_file():
        if path.name != FILE_NAME:
            return _not_a_run(path)
        return with_answers(read_run_file(path), path.parent)
    folder = path if path.is_dir() else runs_index.find_run(runs_dir, ref).folder
    return with_answers(read_run(folder), folder)


def _not_a_run(path: Path) -> RunFile:
    raise DiffError(f"not a run: give a run folder or its {FILE_NAME}", file=str(path))


def without_queries(d: RunDiff, hidden: Collection[str]) -> RunDiff:
    """`d` with no gained or lost line for the queries in `hidden` (another's undecided
    version, blind §20); the figures stay the runs' own."""
    kept = {q: c for q, c in d.comparison.queries.items() if q not in hidden}
    budget = d.budget
    if budget is not None:  # the lists at budget hide them too
        budget = replace(budget, queries={q: c for q, c in budget.queries.items()
                                          if q not in hidden})  # fmt: skip
    return replace(d, comparison=replace(d.comparison, queries=kept), budget=budget)

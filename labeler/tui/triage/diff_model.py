"""Triage of a diff (§16): run A's candidate against run B's, shown by the same screens.

`evaluator.runs.diff` computes the pair; this folds it into one RunFile whose baseline is
A's candidate and whose one candidate is B's, on the shared queries, each query's status
and cause the diff's own, so the summary, the queries list and the boundary view need no
second code path. No Textual here: tests read it headless.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from evaluator.metrics.compare import Comparison
from evaluator.metrics.registry import RECALL, shown
from evaluator.runs.diff import RunDiff, candidate_pairs, diff_runs, load_run_ref
from evaluator.runs.model import RunFile
from evaluator.runs.model_parts import GateRecord
from evaluator.runs.model_queries import QueryRecord, QueryResult
from labeler.tui.triage.model import MEASURES, MetricLine, RunView


def side_names(d: RunDiff) -> tuple[str, str]:
    """The two candidates as triage names them: `A NAME` and `B NAME` (the same name may be
    in both runs)."""
    return f"A {d.candidate_a}", f"B {d.candidate_b}"


def folded(d: RunDiff) -> RunFile:
    """The diff as one run: A's candidate the baseline, B's the candidate, shared queries."""
    la, lb = side_names(d)
    a, b = d.a.candidate(d.candidate_a), d.b.candidate(d.candidate_b)
    others = {} if d.other is None else {lb: d.other}
    return RunFile(
        f"{d.a.id}→{d.b.id}", d.b.started, d.b.seconds, d.b.passed, d.a.manifest,
        (replace(a, name=la, baseline=True), replace(b, name=lb, baseline=False)),
        {lb: d.comparison}, (), {q: _query(d, q) for q in d.shared}, others,
    )  # fmt: skip


def _query(d: RunDiff, qid: str) -> QueryRecord:
    la, lb = side_names(d)
    qa, qb = d.a.queries[qid], d.b.queries[qid]
    side_b = _as_changed(qb.candidates[d.candidate_b], d.comparison, d.other, qid)
    return replace(qa, candidates={la: qa.candidates[d.candidate_a], lb: side_b},
                   text=qa.text if qa.text is not None else qb.text)  # fmt: skip


def _as_changed(
    result: QueryResult, comp: Comparison, other: Comparison | None, qid: str
) -> QueryResult:
    """B's result with the status and cause it has against A (not against B's baseline)."""
    change = comp.queries[qid]
    rule = result.other
    if rule is not None and other is not None:
        oc = other.queries[qid]
        rule = replace(rule, status=oc.status, cause=oc.cause)
    return replace(result, status=change.status, cause=change.cause, other=rule)


class DiffView(RunView):
    """A diff for triage: the folded run, with each side's rule and the diff's measures."""

    def __init__(self, diff: RunDiff) -> None:
        super().__init__(folded(diff))
        self.diff = diff
        """The comparison as `spanlab diff` computes it."""
        self.columns = ("run A", "run B")

    def rules(self, name: str) -> tuple[str, str]:
        run = self.diff.a if name == self.baseline else self.diff.b
        return run.match, run.other_match

    def metric_lines(self, name: str) -> list[MetricLine]:
        """The measures on the shared queries, each side under its run's rule (the diff's);
        a figure of the whole index (chunk count, tokens) as each run recorded it."""
        (ra, rb), d = self.diff.sides, self.diff
        a, b = d.a.candidate(d.candidate_a), d.b.candidate(d.candidate_b)
        return [MetricLine(m, ra.aggregates.get(m, a.metric(m)), rb.aggregates.get(m, b.metric(m)))
                for m in MEASURES]  # fmt: skip

    def gates(self, name: str) -> list[GateRecord]:
        return []

    def head(self) -> str:
        """Which two runs, each with its rule, for triage's header (fits 80 columns)."""
        d = self.diff
        return f"A {d.a.id} match {d.a.match} → B {d.b.id} match {d.b.match}"

    def scope(self) -> str:
        """On how many queries; what was left out; whether only the shared part counts."""
        d = self.diff
        left = f", {len(d.left_out)} left out" if d.left_out else ""
        part = " (other corpora or label sets: shared part only)" if d.partial else ""
        return f"{len(d.shared)} shared queries{left}{part}"

    def other_rule_line(self) -> str | None:
        """The pair under each run's other rule (at k), and at each run's budget (§17) when
        the diff holds it; None when neither is there."""
        d = self.diff
        lines = []
        if d.other is not None:
            counts = d.other.overall.counts
            delta = shown(RECALL).delta_text(d.other.overall.deltas.get(RECALL))
            lines.append(f"A under {d.a.other_match}, B under {d.b.other_match}, at k: "
                         f"+{counts.gained} −{counts.lost} Δrecall {delta}")  # fmt: skip
        if d.budget is not None:
            counts = d.budget.overall.counts
            delta = shown(RECALL).delta_text(d.budget.overall.deltas.get(RECALL))
            lines.append(f"at budget (A {d.a.budget or 0:,}, B {d.b.budget or 0:,}): "
                         f"+{counts.gained} −{counts.lost} Δrecall {delta}")  # fmt: skip
        return "\n".join(lines) or None

    def difference_lines(self) -> list[str]:
        """What differs between the two runs (settings, splitter, manifests), A → B; a hash
        cut to 12 hex digits to fit the summary's column."""
        d = self.diff
        rows = [*(("setting " + n, a, b) for n, a, b in d.settings), *d.manifest]
        if not rows:
            return ["settings and manifests: the same"]
        return ["what differs (A → B):",
                *(f"{n}: {_short(a)} → {_short(b)}" for n, a, b in rows)]  # fmt: skip


def _short(value: str) -> str:
    return re.sub(r"(sha256:[0-9a-f]{12})[0-9a-f]+", r"\1…", value)


def open_diff(runs_dir: Path, run_a: str, run_b: str, *, candidate: str | None = None,
              against_candidate: str | None = None, shared: bool = False) -> RunDiff:  # fmt: skip
    """`spanlab triage RUN_B --against RUN_A`: B's `candidate` against A's (`against_candidate`,
    else the same name); with neither, the first of B's compared candidates A also holds.
    Refuses as `spanlab diff` does (DiffError, RunFileError: exit 2)."""
    a, b = load_run_ref(runs_dir, run_a), load_run_ref(runs_dir, run_b)
    if candidate is not None:
        pair = (against_candidate or candidate, candidate)
    else:
        pairs = candidate_pairs(a, b, against_candidate, None)
        pair = next((p for p in pairs if p[1] in b.others), pairs[0])
    return diff_runs(a, b, *pair, shared_only=shared)

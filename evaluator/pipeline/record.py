"""A finished evaluation as its run file: `RunResult` in, `evaluator.runs`' `RunFile` out.

This is the one place that knows both shapes, so the runs wing never sees a RunResult and
every file of the run folder is written from what run.json holds. The versions of the
installed stack are taken here, when the run is recorded.
"""

from __future__ import annotations

import json
import platform
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from evaluator.chunking.spec import SPLITTER_VERSION
from evaluator.pipeline.result import CandidateRun, RunResult
from evaluator.retrieval.base import Ranked
from evaluator.runs.model import RunFile
from evaluator.runs.model_parts import CandidateRecord, CandidatesFileRef, Manifest
from evaluator.runs.model_queries import (
    EvidenceRef,
    QueryRecord,
    QueryResult,
    RankedEntry,
    RuleResult,
)
from labeler.core.values import Query

STACK = ("spanlab", "chromadb", "transformers", "tokenizers", "onnxruntime", "numpy")
"""The distributions whose versions the manifest records, beside python's."""


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for dist in STACK:
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[dist] = "not installed"
    return found


def _plain(value: dict[str, Any]) -> dict[str, Any]:
    """A free-form mapping as run.json will hold it (what JSON cannot hold, as text)."""
    plain: dict[str, Any] = json.loads(json.dumps(value, default=str))
    return plain


def run_file(result: RunResult, *, include_text: bool) -> RunFile:
    """The run as run.json records it; query text only with `include_text`."""
    settings = result.candidates_file.settings
    return RunFile(
        id=result.id,
        started=result.started,
        seconds=round(result.seconds, 3),
        passed=result.passed,
        manifest=manifest(result, include_text=include_text),
        candidates=tuple(
            candidate_record(n, r, n == settings.baseline) for n, r in result.runs.items()
        ),
        comparisons=dict(result.comparisons),
        gates=tuple(result.gates),
        queries={q.id: query_record(result, q, include_text=include_text) for q in result.queries},
        other_comparisons=dict(result.other_comparisons),
        chunk_tables={name: r.chunks for name, r in result.runs.items()},
        unit_tables={name: r.units for name, r in result.runs.items() if r.units},
        budget_comparisons=dict(result.budget_comparisons),
        other_basis_gates=tuple(result.other_basis_gates),
        generation=result.generation,
        answers=result.answers,
    )


def manifest(result: RunResult, *, include_text: bool) -> Manifest:
    cfile = result.candidates_file
    return Manifest(
        versions=versions(),
        corpus_hash=result.corpus.hash,
        label_set_hash=result.label_set_hash,
        candidates_file=CandidatesFileRef(cfile.path, cfile.hash),
        settings=cfile.settings,
        bootstrap_seed=cfile.settings.seed,
        embedding=_plain(result.embedding),
        include_text=include_text,
        skipped_queries=tuple(result.skipped),
        orphaned_queries=tuple(result.orphaned),
        doc_hashes=result.corpus.doc_hashes,
        context_budget=_plain(result.context_budget),
    )


def candidate_record(name: str, run: CandidateRun, baseline: bool) -> CandidateRecord:
    spec = run.candidate.spec
    return CandidateRecord(
        name, baseline, SPLITTER_VERSION, spec, spec.fingerprint(), run.metrics(),
        run.result.breakdowns, _plain(run.timings), _plain(run.embeddings), _plain(run.extra),
        None if run.other is None else dict(run.other.aggregates),
        None if run.at_budget is None else dict(run.at_budget.aggregates),
        None if run.at_budget_other is None else dict(run.at_budget_other.aggregates),
        _plain(run.curve),
    )  # fmt: skip


def query_record(result: RunResult, query: Query, *, include_text: bool) -> QueryRecord:
    base = result.candidates_file.settings.baseline
    outcomes = {}
    for name, run in result.runs.items():
        change = result.comparisons[name].queries[query.id] if name != base else None
        outcomes[name] = QueryResult(
            _entries(run.ranked[query.id]), run.result.per_query[query.id],
            None if change is None else change.status, None if change is None else change.cause,
            run.result.span_causes.get(query.id, ()), other_result(result, name, query.id),
            _entries(run.sent.get(query.id, ())), run.budget_cuts.get(query.id),
        )  # fmt: skip
    evidence = tuple(EvidenceRef(s.doc, s.start, s.end, s.group) for s in query.evidence)
    return QueryRecord(query.id, query.abstain, query.boundary.value, tuple(query.slices),
                       evidence, outcomes, query.text if include_text else None)  # fmt: skip


def _entries(ranked: Sequence[Ranked]) -> tuple[RankedEntry, ...]:
    return tuple(
        RankedEntry(r.chunk.id, r.chunk.doc, r.chunk.start, r.chunk.end, round(r.score, 6))
        for r in ranked
    )


def other_result(result: RunResult, name: str, qid: str) -> RuleResult | None:
    """The query in candidate `name` under the other match rule, if it was measured."""
    other = result.runs[name].other
    if other is None:
        return None
    change = (
        result.other_comparisons[name].queries[qid] if name in result.other_comparisons else None
    )
    return RuleResult(
        other.per_query[qid], None if change is None else change.status,
        None if change is None else change.cause, other.span_causes.get(qid, ()),
    )  # fmt: skip

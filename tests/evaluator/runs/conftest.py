"""A real lexical run small enough to read whole, and run.json as spanlab wrote it before
the RunFile: the reference the typed writer must match byte for byte.

refunds.md and shipping.md, three answerable queries (one in a gated slice) and one
abstention query; the baseline `c60-ov20` against `c30`, which cuts some evidence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from evaluator.candidates import parse
from evaluator.pipeline import CandidateRun, RunOptions, RunResult, run_evaluation
from evaluator.pipeline.record import versions
from evaluator.runs.model import SEPARATORS
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Boundary, Query, Span

DOCS = {
    "refunds.md": "# Refunds\n\nIf the order arrived damaged, we refund the full price within "
    "14 days. Refunds go back to the original card.\n\n## Exceptions\n\nGift cards cannot be "
    "refunded. Sale items are final.\n",
    "shipping.md": "# Shipping\n\nStandard shipping takes 3 to 5 working days. Express "
    "shipping takes one day and costs 9 EUR. Orders over 50 EUR ship free.\n",
}
CANDIDATES = {
    "settings": {"baseline": "c60-ov20", "k": 2, "depth": 10, "retriever": "lexical"},
    "candidate": [
        {"name": "c60-ov20", "splitter": "chars", "size": 60, "overlap": 20},
        {"name": "c30", "splitter": "chars", "size": 30},
    ],
    "gates": {"max_lost": 1, "slice": {"critical": {"max_lost": 0}}},
}


def _span(corpus: Corpus, doc: str, quote: str) -> tuple[Span]:
    text = corpus.text(doc)
    start = text.index(quote)
    return (Span.from_text(text, doc, start, start + len(quote)),)


def queries(corpus: Corpus) -> list[Query]:
    return [
        Query("q-0001", "damaged order refund days", boundary=Boundary.CONDITION_CONSEQUENCE,
              slices=("critical",), evidence=_span(corpus, "refunds.md", "we refund the full "
                                                   "price within 14 days")),
        Query("q-0002", "express shipping cost", evidence=_span(
            corpus, "shipping.md", "Express shipping takes one day and costs 9 EUR")),
        Query("q-0003", "gift cards refunded", slices=("billing", "critical"),
              evidence=_span(corpus, "refunds.md", "Gift cards cannot be refunded.")),
        Query("q-0004", "do you ship to Mars", abstain=True),
        Query("q-0005", "a draft without evidence yet"),
    ]  # fmt: skip


@dataclass(frozen=True)
class SmallRun:
    corpus: Corpus
    """refunds.md and shipping.md."""
    result: RunResult
    """The evaluation, as run."""


@pytest.fixture(scope="session")
def small_run() -> SmallRun:
    corpus = Corpus.from_texts(DOCS)
    cfile = parse(CANDIDATES, file="candidates.toml", digest="sha256:f00")
    result = run_evaluation(cfile, corpus, queries(corpus), label_corpus_hash=corpus.hash,
                            label_set_hash="sha256:labels",
                            options=RunOptions(latency=True))  # fmt: skip
    return SmallRun(corpus, result)


def _ranked_json(run: CandidateRun, qid: str) -> list[list[Any]]:
    return [
        [r.chunk.id, r.chunk.doc, r.chunk.start, r.chunk.end, round(r.score, 6)]
        for r in run.ranked[qid]
    ]


def legacy_run_json(result: RunResult, *, include_text: bool) -> dict[str, Any]:
    """`evaluator.runs.report.run_json` as it was before the RunFile, word for word."""
    settings = result.candidates_file.settings
    base = settings.baseline
    queries: dict[str, Any] = {}
    for q in result.queries:
        entry: dict[str, Any] = {
            "abstain": q.abstain,
            "boundary": q.boundary.value,
            "slices": list(q.slices),
            "evidence": [{"doc": s.doc, "start": s.start, "end": s.end} for s in q.evidence],
            "candidates": {},
        }
        if include_text:
            entry["text"] = q.text
        for name, run in result.runs.items():
            change = result.comparisons[name].queries[q.id] if name != base else None
            entry["candidates"][name] = {
                "ranked": _ranked_json(run, q.id),
                "values": run.result.per_query[q.id],
                "status": None if change is None else change.status,
                "cause": None if change is None else change.cause,
                # Issue 13 adds each span's cause; the rest is the legacy file, unchanged.
                "span_causes": list(run.result.span_causes[q.id]),
                # Issue 22 adds the same query under the other match rule.
                "other_rule": _other_rule_json(result, name, q.id),
            }
            if q.id in run.budget_cuts:  # issue 40: how many ranks the budget sends
                entry["candidates"][name]["budget_cut"] = run.budget_cuts[q.id]
        queries[q.id] = entry
    return {
        "format": "spanlab.run/1",
        "id": result.id,
        "started": result.started,
        "seconds": round(result.seconds, 3),
        "passed": result.passed,
        "manifest": {
            "versions": versions(),
            "corpus_hash": result.corpus.hash,
            "label_set_hash": result.label_set_hash,
            "candidates_file": {
                "path": result.candidates_file.path,
                "hash": result.candidates_file.hash,
            },
            "settings": settings.__dict__,
            "seeds": {"bootstrap": settings.seed},
            "embedding": result.embedding,
            "include_text": include_text,
            "skipped_queries": list(result.skipped),
            # Issue 29 adds the context budget, its basis and the latency plan.
            "context_budget": result.context_budget,
            "doc_hashes": result.corpus.doc_hashes,  # added since (issue 33), last in manifest
        },
        "candidates": {
            name: {
                "baseline": name == base,
                "splitter": run.candidate.spec.fingerprint_fields(),
                "splitter_fingerprint": run.candidate.spec.fingerprint(),
                "metrics": run.metrics(),
                "breakdowns": run.result.to_json()["breakdowns"],
                "timings": run.timings,
                "embeddings": run.embeddings,
                "index": run.extra,
                "metrics_other_rule": run.other.aggregates if run.other else None,
                # Issue 29 adds every measure at the context budget, and the curve.
                "metrics_at_budget": run.at_budget.aggregates if run.at_budget else None,
                "metrics_at_budget_other_rule": (
                    run.at_budget_other.aggregates if run.at_budget_other else None
                ),
                "budget_curve": run.curve,
            }
            for name, run in result.runs.items()
        },
        "comparisons": {name: comp.to_json() for name, comp in result.comparisons.items()},
        "gates": [g.to_json() for g in result.gates],
        "queries": queries,
        "comparisons_other_rule": {
            name: comp.to_json() for name, comp in result.other_comparisons.items()
        },
        # Issue 29 adds the comparisons at the budget and the gates on the other basis.
        "comparisons_at_budget": {
            name: comp.to_json() for name, comp in result.budget_comparisons.items()
        },
        "gates_other_basis": [g.to_json() for g in result.other_basis_gates],
    }


def _other_rule_json(result: RunResult, name: str, qid: str) -> dict[str, Any]:
    other = result.runs[name].other
    assert other is not None
    change = (
        result.other_comparisons[name].queries[qid] if name in result.other_comparisons else None
    )
    return {
        "values": other.per_query[qid],
        "status": None if change is None else change.status,
        "cause": None if change is None else change.cause,
        "span_causes": list(other.span_causes[qid]),
    }


def legacy_text(result: RunResult, *, include_text: bool) -> str:
    """run.json's text as the legacy writer dumped it (compact since its indents cost 5 % of a
    warm run)."""
    data = legacy_run_json(result, include_text=include_text)
    return json.dumps(data, ensure_ascii=False, separators=SEPARATORS, default=str) + "\n"

"""One candidate's figures (§7, §17, §18): every measure under both match rules, at k and at
the context budget, the recall–budget curve, and what its first query pass and its vectors
cost."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.metrics import CandidateResult, ChunkIndex, MetricSettings, evaluate
from evaluator.metrics.causes import other_rule
from evaluator.metrics.curve import budget_curve
from evaluator.metrics.registry import RULED
from evaluator.metrics.sent import Sending
from evaluator.metrics.view import QueryView
from evaluator.pipeline import latency
from evaluator.pipeline.context import Context
from evaluator.retrieval.base import QueryInput, Ranked
from labeler.core.values import Query


def first_timings(
    chunk_seconds: float, index_seconds: float, warm: bool, latencies: Sequence[float]
) -> dict[str, Any]:
    """Cutting and indexing seconds and the first (cold) query pass, each labelled."""
    return {
        "chunk_seconds": round(chunk_seconds, 4),
        "index_seconds": round(index_seconds, 4),
        "index_kind": "warm" if warm else "cold",
        "query_first_pass_kind": "cold",
        "query_first_pass_p50_ms": latency.percentile(latencies, 50),
        "query_first_pass_p95_ms": latency.percentile(latencies, 95),
    }


def vector_bytes(chunks: Sequence[Chunk], inputs: Sequence[QueryInput]) -> int | None:
    """Bytes of the index's vectors as stored (float32): chunks × dimension × 4."""
    vector = next((q.vector for q in inputs if q.vector is not None), None)
    return None if vector is None else len(chunks) * int(vector.shape[-1]) * 4


def measure_all(
    ctx: Context,
    name: str,
    queries: Sequence[Query],
    ranked: dict[str, list[Ranked]],
    chunks: Sequence[Chunk],
    units: Sending | None = None,
    similarity: bool = True,
) -> tuple[
    CandidateResult,
    CandidateResult,
    CandidateResult,
    CandidateResult,
    dict[str, Any],
    dict[str, int],
]:
    """Every measure under the declared match rule, and the rule-dependent ones under the
    other (§7: reports show both; only the declared one gates); both again at the context
    budget (§17), the recall–budget curve, and per query how many ranks the budget sends
    (run.json's `budget_cut`, for `trec` and anyone recomputing the verdict). Measures look
    up chunks only in documents that hold evidence, so only those are indexed; with context
    units (§18) the index is what can be sent, and every measure is taken on what is sent."""
    docs = {s.doc for q in queries for s in q.evidence}
    index = ChunkIndex.build(of_documents(chunks if units is None else units.sendable(), docs))
    params = replace(MetricSettings.of(ctx.settings), similarity=similarity)
    views = [QueryView(q, ranked[q.id], index, params, ctx.counter, units) for q in queries]
    found = []
    for budget in (None, ctx.settings.budget):  # each query's view, seen at k and at budget
        at = replace(params, budget=budget)
        other = replace(at, match=other_rule(at.match))
        found.append(evaluate(queries, ranked, index, settings=at, texts=ctx.texts,
                              count_tokens=ctx.counter, name=name, sending=units,
                              views=[v.seen(at) for v in views]))  # fmt: skip
        found.append(evaluate(queries, ranked, index, texts=ctx.texts, settings=other,
                              count_tokens=ctx.counter, name=name, measures=RULED,
                              sending=units, views=[v.seen(other) for v in views]))  # fmt: skip
    curve = budget_curve(queries, ranked, index, params, ctx.counter,
                         ctx.settings.budget_ladder, units, views)  # fmt: skip
    budget = ctx.settings.budget
    cuts = (
        {}
        if budget is None
        else {v.query.id: v.seen(replace(params, budget=budget)).cut for v in views}
    )
    return found[0], found[1], found[2], found[3], curve, cuts


def of_documents(chunks: Sequence[Chunk], docs: set[str]) -> Sequence[Chunk]:
    """The chunks in these documents."""
    if isinstance(chunks, ChunkTable):
        return chunks.of_docs(docs)
    return [c for c in chunks if c.doc in docs]

"""One evaluation in steps: cut, embed the queries, run each candidate, compare, gate (§7).

Each step is a plain function over values, so the CLI, the demo and the TUI's worker all
call the same `run_evaluation`; it returns a `RunResult` and writes nothing —
`evaluator.runs` writes the run folder.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np

from evaluator.candidates import Candidate, CandidatesFile, Settings
from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.tokenizers import TokenizerAdapter, count_many, load_tokenizer
from evaluator.embedding.vectors import VectorSource
from evaluator.metrics import CandidateResult, ChunkIndex, MetricSettings, TokenCounter, evaluate
from evaluator.metrics.causes import other_rule
from evaluator.metrics.compare import Comparison, compare
from evaluator.metrics.registry import RULED
from evaluator.metrics.sent import Sending
from evaluator.metrics.stats import counted_stats
from evaluator.pipeline import progress, sanity
from evaluator.pipeline.cutting import cut as cut
from evaluator.pipeline.cutting import usable_queries as usable_queries
from evaluator.pipeline.gates import check as check_gates
from evaluator.pipeline.options import RunOptions
from evaluator.pipeline.result import CandidateRun, RunResult
from evaluator.pipeline.units import sending
from evaluator.retrieval import RETRIEVERS, IndexRequest, build_retriever
from evaluator.retrieval.base import QueryInput, Ranked, Retriever, embedded_text
from evaluator.retrieval.chroma_lease import session as lease_session
from evaluator.retrieval.exact import ExactRetriever
from evaluator.retrieval.rerank import cached_scorer
from evaluator.retrieval.stages import treated
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query, Status


@dataclass(frozen=True)
class Context:
    """What every candidate of one run shares."""

    settings: Settings
    """The frozen `[settings]`."""
    corpus: Corpus
    """The corpus as read."""
    texts: Mapping[str, str]
    """Document id -> canonical text (read when asked for: the corpus is not held, §6)."""
    counter: TokenCounter
    """Counts tokens with the settings' tokenizer."""
    tokenizer: TokenizerAdapter
    """The settings' tokenizer, for counting many chunks in one call."""
    vectors: VectorSource
    """Embeds texts through the cache, the model loaded on first use."""
    options: RunOptions
    """Where indexes and the cache live."""


def run_evaluation(
    cfile: CandidatesFile,
    corpus: Corpus,
    queries: Sequence[Query],
    *,
    label_corpus_hash: str,
    label_set_hash: str,
    options: RunOptions = RunOptions(),
) -> RunResult:
    """Cut, index, query and measure every candidate; compare each with the baseline."""
    started = time.perf_counter()
    started_at = datetime.now(UTC)
    settings = cfile.settings
    kept, skipped = usable_queries(queries)
    sanity.check_labels(kept, corpus, label_corpus_hash)
    sanity.check_gated_slices(cfile.gates.slices, kept)
    ctx = context(settings, corpus, options)
    chunks_by, chunk_seconds = cut(cfile, corpus)  # every candidate checked before any work
    inputs, query_embeddings = embed_queries(
        ctx, kept, any(uses_vectors(ctx, c) for c in cfile.candidates)
    )
    runs: dict[str, CandidateRun] = {}
    with lease_session():  # the collections this run uses are not pruned under it
        for name in run_order(cfile):
            cand = cfile.candidate(name)
            runs[name] = run_candidate(ctx, cand, chunks_by[name], chunk_seconds[name], kept,
                                       inputs)  # fmt: skip
    comparisons = compare_all(settings, runs)
    other_comparisons = compare_all(settings, runs, other=True)
    return RunResult(
        id=started_at.strftime("%Y%m%d-%H%M%S-") + f"{started_at.microsecond:06d}",
        started=started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        candidates_file=cfile,
        corpus=corpus,
        queries=tuple(kept),
        label_set_hash=label_set_hash,
        runs=runs,
        comparisons=comparisons,
        gates=check_gates(
            cfile.gates, comparisons, {n: r.stats.chunk_count for n, r in runs.items()}
        ),
        other_comparisons=other_comparisons,
        embedding=embedding_info(ctx, query_embeddings),
        skipped=skipped,
        orphaned=orphaned_queries(queries),
        seconds=time.perf_counter() - started,
    )


def orphaned_queries(queries: Sequence[Query]) -> tuple[str, ...]:
    """Of the left-out queries, those labelled or reviewed: their evidence was orphaned (a
    corpus change removed it), so they are not drafts and reports must say so."""
    done = (Status.LABELLED, Status.REVIEWED)
    return tuple(q.id for q in queries if not q.abstain and not q.evidence and q.status in done)


def context(settings: Settings, corpus: Corpus, options: RunOptions) -> Context:
    texts = corpus.texts()
    task = functools.partial(progress.task, enabled=options.progress)
    tokenizer = load_tokenizer(settings.tokenizer)
    return Context(
        settings, corpus, texts, TokenCounter(tokenizer.count, texts), tokenizer,
        VectorSource(settings.embedding, options.cache_path, task), options,
    )  # fmt: skip


def run_order(cfile: CandidatesFile) -> list[str]:
    """The baseline first, then the candidates in file order."""
    base = cfile.settings.baseline
    return [base] + [c.name for c in cfile.candidates if c.name != base]


def uses_vectors(ctx: Context, cand: Candidate) -> bool:
    """Whether the candidate's retriever or treatment (MMR) needs embeddings."""
    kind = cand.retriever(ctx.settings)
    return RETRIEVERS[kind].uses_vectors or cand.treatment.mmr is not None


def embed_queries(
    ctx: Context, queries: Sequence[Query], needed: bool
) -> tuple[list[QueryInput], dict[str, int]]:
    """Each query as a retriever input, embedded when some candidate uses vectors."""
    inputs = [QueryInput(q.id, q.text) for q in queries]
    if not needed or not inputs:
        return inputs, {}
    vecs, counts = ctx.vectors.embed([q.text for q in queries], "queries")
    return [QueryInput(q.id, q.text, vecs[i]) for i, q in enumerate(queries)], counts


def run_candidate(
    ctx: Context,
    cand: Candidate,
    chunks: Sequence[Chunk],
    chunk_seconds: float,
    queries: Sequence[Query],
    inputs: Sequence[QueryInput],
) -> CandidateRun:
    """Index one candidate, search every query to depth, and measure it."""
    settings, kind = ctx.settings, cand.retriever(ctx.settings)
    t = time.perf_counter()
    built = build_retriever(kind, index_request(ctx, cand, chunks, inputs))
    index_seconds = time.perf_counter() - t
    retriever = with_treatment(ctx, cand, built.retriever)
    ranked, latencies = search_timed(retriever, inputs, settings.depth)
    extra = dict(built.extra) | treatment_record(ctx, cand)
    if ctx.options.check_ann and kind == "chroma":
        extra["ann_agreement"] = ann_agreement(ctx, ranked, chunks, inputs)
    retrieved = {r.chunk.id for hits in ranked.values() for r in hits}
    stats = counted_stats(
        chunks, ctx.counter, functools.partial(count_many, ctx.tokenizer), retrieved
    )  # each chunk counted once; the retrieved ones kept
    units = sending(cand.spec, chunks, ctx.corpus)
    result, other = measure_both_rules(ctx, cand.name, queries, ranked, chunks, units)
    return CandidateRun(
        cand, chunks, ranked, result, stats,
        timings={
            "chunk_seconds": round(chunk_seconds, 4),
            "index_seconds": round(index_seconds, 4),
            "index_kind": "warm" if built.warm and RETRIEVERS[kind].uses_vectors else "cold",
            "query_p50_ms": percentile(latencies, 50),
            "query_p95_ms": percentile(latencies, 95),
        },
        embeddings=built.embedded,
        extra=extra,
        other=other,
        sent={} if units is None else {q: units.ranking(r) for q, r in ranked.items()},
    )  # fmt: skip


def measure_both_rules(
    ctx: Context,
    name: str,
    queries: Sequence[Query],
    ranked: dict[str, list[Ranked]],
    chunks: Sequence[Chunk],
    units: Sending | None = None,
) -> tuple[CandidateResult, CandidateResult]:
    """Every measure under the declared match rule, and the rule-dependent ones under the
    other (§7: reports show both; only the declared one gates). Measures look up chunks
    only in documents that hold evidence, so only those are indexed; with context units
    (§18) the index is what can be sent, and every measure is taken on what is sent."""
    docs = {s.doc for q in queries for s in q.evidence}
    sendable = of_documents(chunks if units is None else units.sendable(), docs)
    index = ChunkIndex.build(sendable)
    params = MetricSettings.of(ctx.settings)
    result = evaluate(queries, ranked, index, settings=params, texts=ctx.texts,
                      count_tokens=ctx.counter, name=name, sending=units)  # fmt: skip
    other = evaluate(queries, ranked, index, texts=ctx.texts,
                     settings=replace(params, match=other_rule(params.match)),
                     count_tokens=ctx.counter, name=name, measures=RULED,
                     sending=units)  # fmt: skip
    return result, other


def of_documents(chunks: Sequence[Chunk], docs: set[str]) -> Sequence[Chunk]:
    """The chunks in these documents."""
    if isinstance(chunks, ChunkTable):
        return chunks.of_docs(docs)
    return [c for c in chunks if c.doc in docs]


def index_request(
    ctx: Context, cand: Candidate, chunks: Sequence[Chunk], inputs: Sequence[QueryInput] = ()
) -> IndexRequest:
    vectors = RETRIEVERS[cand.retriever(ctx.settings)].uses_vectors
    return IndexRequest(
        cand.name, cand.spec.fingerprint(), ctx.corpus.hash, chunks, ctx.texts,
        ctx.vectors if vectors else None, ctx.options.chroma_url, ctx.options.chroma_path,
        ctx.options.chroma_timeout, ctx.corpus.doc_hashes, cand.treatment, inputs,
        ctx.settings.depth,
    )  # fmt: skip


def with_treatment(ctx: Context, cand: Candidate, retriever: Retriever) -> Retriever:
    """The retriever with the candidate's rerank, MMR and cap stages (§19)."""
    rerank = cand.treatment.rerank
    scorer = None if rerank is None else cached_scorer(rerank, ctx.options.cache_path)
    return treated(retriever, cand.treatment, ctx.texts, ctx.vectors, scorer)


def treatment_record(ctx: Context, cand: Candidate) -> dict[str, Any]:
    """The candidate's retriever and treatment as run.json's `index` records them."""
    record = cand.treatment.record()
    if not record:
        return {}
    return {"retriever": cand.retriever(ctx.settings), "treatment": record,
            "treatment_fingerprint": cand.treatment.fingerprint()}  # fmt: skip


def search_timed(
    retriever: Retriever, inputs: Sequence[QueryInput], depth: int
) -> tuple[dict[str, list[Ranked]], list[float]]:
    """Each query's ranked list, and each search's latency in milliseconds."""
    ranked: dict[str, list[Ranked]] = {}
    latencies: list[float] = []
    for q in inputs:
        t = time.perf_counter()
        ranked[q.id] = retriever.search([q], depth)[0]
        latencies.append((time.perf_counter() - t) * 1000)
    return ranked, latencies


def percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    return float(np.percentile(np.asarray(values), q))


def compare_all(
    settings: Settings, runs: dict[str, CandidateRun], *, other: bool = False
) -> dict[str, Comparison]:
    """Every candidate against the baseline, under the declared rule or the other one."""

    def pick(run: CandidateRun) -> CandidateResult | None:
        return run.other if other else run.result

    base = pick(runs[settings.baseline])
    return {
        name: compare(base, result, resamples=settings.resamples, seed=settings.seed)
        for name, run in runs.items()
        if name != settings.baseline and base is not None and (result := pick(run)) is not None
    }


def embedding_info(ctx: Context, query_embeddings: dict[str, int]) -> dict[str, Any]:
    """The model's id and fingerprint and the cache's counts, for the manifest."""
    info: dict[str, Any] = {"name": ctx.settings.embedding}
    if not query_embeddings and not RETRIEVERS[ctx.settings.retriever].uses_vectors:
        return info
    emb = ctx.vectors.embedder
    stats = emb.stats()
    info.update(
        model_id=emb.model_id, fingerprint=emb.fingerprint,
        cache={"hits": stats.hits, "misses": stats.misses}, queries=query_embeddings,
    )  # fmt: skip
    return info


def ann_agreement(
    ctx: Context,
    ranked: dict[str, list[Ranked]],
    chunks: Sequence[Chunk],
    inputs: Sequence[QueryInput],
) -> float | None:
    """Mean share of Chroma's top-k that the exact retriever also puts in its top-k."""
    k = ctx.settings.k
    texts = [embedded_text(c, ctx.texts) for c in chunks]
    vecs, _ = ctx.vectors.embed(texts, "exact check")
    exact = ExactRetriever(chunks, vecs).search(inputs, k)
    shares = []
    for q, ex in zip(inputs, exact, strict=True):
        approx = {r.chunk.id for r in ranked[q.id][:k]}
        want = {r.chunk.id for r in ex}
        if want:
            shares.append(len(approx & want) / len(want))
    return statistics.fmean(shares) if shares else None

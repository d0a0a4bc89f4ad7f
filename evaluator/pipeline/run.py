"""One evaluation in steps: cut, embed the queries, run each candidate, compare, gate (§7).

Each step is a plain function over values, so the CLI, the demo and the TUI's worker all
call the same `run_evaluation`; it returns a `RunResult` and writes nothing —
`evaluator.runs` writes the run folder.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from evaluator.candidates import Candidate, CandidatesFile, Settings
from evaluator.chunk import Chunk
from evaluator.chunking.tokenizers import count_many, load_tokenizer
from evaluator.embedding.vectors import VectorSource
from evaluator.metrics import CandidateResult, TokenCounter
from evaluator.metrics.compare import Comparison, compare
from evaluator.metrics.stats import IndexStats
from evaluator.pipeline import latency, progress, sanity
from evaluator.pipeline.budget import Sized, declare, sized
from evaluator.pipeline.context import Context
from evaluator.pipeline.cutting import cut as cut
from evaluator.pipeline.cutting import usable_queries as usable_queries
from evaluator.pipeline.gates import Costs
from evaluator.pipeline.gates import check as check_gates
from evaluator.pipeline.generated import generate
from evaluator.pipeline.measured import first_timings, measure_all, vector_bytes
from evaluator.pipeline.options import RunOptions
from evaluator.pipeline.plan import plan_cut
from evaluator.pipeline.result import CandidateRun, RunResult
from evaluator.pipeline.tokens import prime_from_table, table_counts
from evaluator.pipeline.treated import (
    filter_docs,
    filtered,
    treatment_record,
    uses_vectors,
    with_treatment,
)
from evaluator.pipeline.units import sending
from evaluator.plan.model import Plan
from evaluator.retrieval import RETRIEVERS, IndexRequest, build_retriever
from evaluator.retrieval.base import QueryInput, Ranked, Retriever, embedded_text
from evaluator.retrieval.chroma_lease import session as lease_session
from evaluator.retrieval.exact import ExactRetriever
from evaluator.retrieval.filters import Filtered, query_scope
from evaluator.runs.model_parts import GateRecord
from labeler.core.corpus.folder import Corpus
from labeler.core.project.cache_place import own_file
from labeler.core.values import Query, Status


def run_evaluation(
    cfile: CandidatesFile,
    corpus: Corpus,
    queries: Sequence[Query],
    *,
    label_corpus_hash: str,
    label_set_hash: str,
    options: RunOptions = RunOptions(),
    planned: Callable[[Plan], None] | None = None,
) -> RunResult:
    """Cut, index, query and measure every candidate; compare each with the baseline. With
    `planned`, hand it the plan of the same cut first (§17), before anything is embedded."""
    started = time.perf_counter()
    started_at = datetime.now(UTC)
    settings = cfile.settings
    kept, skipped = usable_queries(queries)
    bars = functools.partial(progress.task, enabled=options.progress)
    sanity.check_labels(kept, corpus, label_corpus_hash, bars)
    sanity.check_gated_slices(cfile.gates.slices, kept)
    ctx = context(settings, corpus, options)
    chunks_by, chunk_seconds = cut(cfile, corpus, share=True, task=bars)  # all checked first
    tokens = table_counts(ctx.tokenizer, ctx.texts, chunks_by, ctx.counter, bars)  # once
    if planned is not None:
        planned(plan_cut(cfile, corpus, chunks_by, kept, own_file(options.cache_path), tokens,
                         task=bars))  # fmt: skip
    cfile, ctx, sizes, budget_note = declared(cfile, ctx, chunks_by)
    settings = cfile.settings
    inputs, query_embeddings = embed_queries(
        ctx, kept, any(uses_vectors(ctx.settings, c) for c in cfile.candidates)
    )
    with lease_session():  # the collections this run uses are not pruned under it
        runs, timed = run_all(ctx, cfile, (chunks_by, chunk_seconds, sizes), kept, inputs)
    comparisons = compare_all(settings, runs)
    at_budget = compare_all(settings, runs, basis="budget")
    gates, other_gates = both_bases(cfile, runs, comparisons, at_budget)
    answered = generate(ctx, cfile, runs, kept, at_budget)  # §23: its own stage, or None
    if answered is not None:
        gates = gates + list(answered.gates)
    return RunResult(
        id=started_at.strftime("%Y%m%d-%H%M%S-") + f"{started_at.microsecond:06d}",
        started=started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        candidates_file=cfile,
        corpus=corpus,
        queries=tuple(kept),
        label_set_hash=label_set_hash,
        runs=runs,
        comparisons=comparisons,
        gates=gates,
        other_comparisons=compare_all(settings, runs, other=True),
        embedding=embedding_info(ctx, query_embeddings),
        skipped=skipped,
        orphaned=orphaned_queries(queries),
        seconds=time.perf_counter() - started,
        budget_comparisons=at_budget,
        other_basis_gates=other_gates,
        context_budget=budget_note | {"latency": timed},
        generation=None if answered is None else answered.summary,
        answers=() if answered is None else answered.records,
    )


def declared(
    cfile: CandidatesFile, ctx: Context, chunks_by: Mapping[str, Sequence[Chunk]]
) -> tuple[CandidatesFile, Context, dict[str, Sized], dict[str, Any]]:
    """The budget and the deciding basis, from the chunking alone (§17), set into the
    candidates file and the context; every candidate's size; how each was chosen."""
    count = functools.partial(count_many, ctx.tokenizer)
    sizes = {n: sized(c, ctx.counter, count) for n, c in chunks_by.items()}
    settings, note = declare(ctx.settings, sizes, cfile.path)
    return replace(cfile, settings=settings), replace(ctx, settings=settings), sizes, note


def run_all(
    ctx: Context,
    cfile: CandidatesFile,
    cut_as: tuple[Mapping[str, Sequence[Chunk]], Mapping[str, float], Mapping[str, Sized]],
    queries: Sequence[Query],
    inputs: Sequence[QueryInput],
) -> tuple[dict[str, CandidateRun], dict[str, Any]]:
    """Every candidate run, baseline first, then (when asked) timed in seeded shuffled
    passes."""
    chunks_by, seconds, sizes = cut_as
    runs: dict[str, CandidateRun] = {}
    retrievers: dict[str, Retriever] = {}
    for cand in cfile.candidates:  # a filter that lets nothing through stops the run first
        filter_docs(ctx.texts, cand)
    order = run_order(cfile)
    weight = {n: max(1, len(chunks_by[n])) for n in order}  # time goes with the chunks
    overall = f"eval: {len(order)} candidates (chunks indexed)"
    with progress.task(overall, sum(weight.values()), enabled=ctx.options.progress) as advance:
        for name in order:
            runs[name], retrievers[name] = run_candidate(
                ctx, cfile.candidate(name), chunks_by[name], seconds[name], sizes[name].stats,
                queries, inputs,
            )  # fmt: skip
            advance(weight[name])
    if not latency.asked(cfile.gates, ctx.options.latency):
        return runs, dict(latency.NOT_MEASURED)
    return runs, time_latency(ctx, runs, retrievers, inputs)


def both_bases(
    cfile: CandidatesFile,
    runs: Mapping[str, CandidateRun],
    at_k: Mapping[str, Comparison],
    at_budget: Mapping[str, Comparison],
) -> tuple[list[GateRecord], list[GateRecord]]:
    """Every gate on the deciding basis, then on the other one (for the flags, §17)."""
    on_k = run_gates(cfile, runs, at_k, False)
    on_budget = run_gates(cfile, runs, at_budget, True)
    return (on_budget, on_k) if cfile.settings.decide == "budget" else (on_k, on_budget)


def run_gates(
    cfile: CandidatesFile,
    runs: Mapping[str, CandidateRun],
    comps: Mapping[str, Comparison],
    at_budget: bool,
) -> list[GateRecord]:
    """Every gate on one basis: the comparisons at k or at budget, and the costs."""
    figures = {n: r.metrics() for n, r in runs.items()}
    results = {n: r.at_budget if at_budget and r.at_budget else r.result
               for n, r in runs.items()}  # fmt: skip
    counts = {n: r.stats.chunk_count for n, r in runs.items()}
    return check_gates(cfile.gates, comps, counts, Costs(figures, results))


def time_latency(
    ctx: Context,
    runs: Mapping[str, CandidateRun],
    retrievers: Mapping[str, Retriever],
    inputs: Sequence[QueryInput],
) -> dict[str, Any]:
    """Warm passes over every candidate in seeded shuffled orders, into each run's timings
    (with its place in each pass, 1 = first); the plan, for the manifest."""
    plan = latency.orders(list(retrievers), ctx.settings.latency_repeats, ctx.settings.seed)
    for name, found in latency.warm_passes(retrievers, inputs, ctx.settings.depth,
                                           plan).items():  # fmt: skip
        runs[name].timings.update(found, query_pass_places=[o.index(name) + 1 for o in plan])
    return {"repeats": ctx.settings.latency_repeats, "shuffled_by_seed": ctx.settings.seed}


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


def embed_queries(
    ctx: Context, queries: Sequence[Query], needed: bool
) -> tuple[list[QueryInput], dict[str, int]]:
    """Each query as a retriever input, embedded when some candidate uses vectors."""
    scopes = {q.id: query_scope(q.filter, q.id, ctx.texts) for q in queries if q.filter}
    inputs = [_scoped(QueryInput(q.id, q.text), scopes) for q in queries]
    if not needed or not inputs:
        return inputs, {}
    vecs, counts = ctx.vectors.embed([q.text for q in queries], "queries")
    return [_scoped(QueryInput(q.id, q.text, vecs[i]), scopes)
            for i, q in enumerate(queries)], counts  # fmt: skip


def _scoped(q: QueryInput, scopes: Mapping[str, tuple[frozenset[str], Any]]) -> QueryInput:
    """The query told its own filter (§24), when its label carries one."""
    if q.id not in scopes:
        return q
    docs, declared = scopes[q.id]
    return replace(q, docs=docs, filter=(declared,))


def run_candidate(
    ctx: Context,
    cand: Candidate,
    chunks: Sequence[Chunk],
    chunk_seconds: float,
    stats: IndexStats,
    queries: Sequence[Query],
    inputs: Sequence[QueryInput],
) -> tuple[CandidateRun, Retriever]:
    """Index one candidate, search every query to depth, and measure it; its retriever (with
    its treatment), for the timed passes."""
    settings, kind = ctx.settings, cand.retriever(ctx.settings)
    t = time.perf_counter()
    built = build_retriever(kind, index_request(ctx, cand, chunks, inputs))
    index_seconds = time.perf_counter() - t
    scoped = any(q.docs is not None for q in inputs)
    told = filtered(ctx.texts, cand, built.retriever, scoped)
    retriever = with_treatment(ctx.texts, ctx.vectors, ctx.options.cache_path, cand, told)
    ranked, latencies = latency.search_timed(retriever, inputs, settings.depth)
    extra = dict(built.extra) | treatment_record(settings, cand)
    if isinstance(told, Filtered):
        extra |= told.record()
    if ctx.options.check_ann and kind == "chroma":
        extra["ann_agreement"] = ann_agreement(ctx, ranked, chunks, inputs)
    retrieved = [r.chunk for hits in ranked.values() for r in hits]
    prime_from_table(ctx.counter, retrieved, chunks, functools.partial(count_many, ctx.tokenizer))
    units = sending(cand.spec, chunks, ctx.corpus)
    similar = kind in SIMILARITY_RETRIEVERS and cand.treatment.rerank is None
    measured = measure_all(ctx, cand.name, queries, ranked, chunks, units, similar)
    vectors = RETRIEVERS[kind].uses_vectors
    run = CandidateRun(
        cand, chunks, ranked, measured[0], stats,
        timings=first_timings(chunk_seconds, index_seconds, built.warm and vectors, latencies),
        embeddings=built.embedded,
        extra=extra,
        other=measured[1],
        sent={} if units is None else {q: units.ranking(r) for q, r in ranked.items()},
        at_budget=measured[2],
        at_budget_other=measured[3],
        curve=measured[4],
        budget_cuts=measured[5],
        units=() if units is None else units.sendable(),
        sending=units,
        vector_bytes=vector_bytes(chunks, inputs) if vectors else None,
    )  # fmt: skip
    return run, retriever


SIMILARITY_RETRIEVERS = ("chroma", "exact")
"""Retrievers whose scores are cosine similarities: abstention top-1 is taken from these."""


def index_request(
    ctx: Context, cand: Candidate, chunks: Sequence[Chunk], inputs: Sequence[QueryInput] = ()
) -> IndexRequest:
    vectors = RETRIEVERS[cand.retriever(ctx.settings)].uses_vectors
    return IndexRequest(
        cand.name, cand.spec.fingerprint(), ctx.corpus.hash, chunks, ctx.texts,
        ctx.vectors if vectors else None, ctx.options.chroma_url, ctx.options.chroma_path,
        ctx.options.chroma_timeout, ctx.corpus.doc_hashes, cand.treatment, inputs,
        ctx.settings.depth, chunk_ids(ctx, cand), sent_units(ctx, cand, chunks),
    )  # fmt: skip


def sent_units(ctx: Context, cand: Candidate, chunks: Sequence[Chunk]) -> Mapping[str, Chunk]:
    """What is sent for each chunk, for a candidate whose rankings come from outside and
    whose context units a framework may name a hit by (§24)."""
    if cand.spec.context is None or cand.retriever(ctx.settings) not in ("ranked", "http"):
        return {}
    units = sending(cand.spec, chunks, ctx.corpus)
    return {} if units is None else units.units


def chunk_ids(ctx: Context, cand: Candidate) -> dict[str, tuple[str, int, int]]:
    """A chunk file's own ids, for a candidate whose rankings come from outside (§19)."""
    spec, kind = cand.spec, cand.retriever(ctx.settings)
    if not spec.exported or kind not in ("ranked", "http"):
        return {}
    from evaluator.chunking.exported import chunk_ids as read_ids

    return read_ids(str(spec.options["path"]), ctx.texts)


def compare_all(
    settings: Settings,
    runs: dict[str, CandidateRun],
    *,
    other: bool = False,
    basis: str = "k",
) -> dict[str, Comparison]:
    """Every candidate against the baseline, under the declared rule or the other one, at
    k or at the context budget."""

    def pick(run: CandidateRun) -> CandidateResult | None:
        if basis == "budget":
            return run.at_budget_other if other else run.at_budget
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

"""One evaluation: every candidate cut, indexed, queried and measured, then compared (§7, §9).

The pipeline is a plain function so the CLI, the demo and the TUI's worker all call the
same thing; it returns values and writes nothing — `evaluator.report` writes the run.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evaluator import gates as gate_rules
from evaluator import progress, sanity
from evaluator.candidates import Candidate, CandidatesFile
from evaluator.chunk import Chunk
from evaluator.chunking import chunk_corpus
from evaluator.chunking.tokenizers import load_tokenizer
from evaluator.compare import Comparison, compare
from evaluator.metrics import CandidateResult, Ranked, TokenCounter, evaluate
from evaluator.metrics.stats import IndexStats, index_stats
from evaluator.retrieval import QueryInput, Retriever, embedded_text
from evaluator.retrieval.exact import ExactRetriever
from evaluator.retrieval.lexical import LexicalRetriever
from labeler.core.corpus import Corpus
from labeler.core.values import Query

Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True)
class RunOptions:
    include_text: bool = False
    """Allow document, chunk and query text in the written run."""
    chroma_url: str | None = None
    """Use a Chroma server instead of the embedded client."""
    chroma_path: Path | None = None
    """Embedded Chroma's folder."""
    cache_path: Path | None = None
    """The embedding cache (SQLite); None keeps it in memory."""
    check_ann: bool = False
    """Also rank with the exact retriever and report top-k agreement with Chroma."""
    progress: bool | None = None
    """Force progress bars on or off (None: on a TTY outside CI)."""


@dataclass
class CandidateRun:
    candidate: Candidate
    """What was run."""
    chunks: list[Chunk]
    """Every chunk of the candidate's index."""
    ranked: dict[str, list[Ranked]]
    """Query id -> ranked list to depth."""
    result: CandidateResult
    """Per-query and aggregate measures."""
    stats: IndexStats
    """Size of the index."""
    timings: dict[str, Any] = field(default_factory=dict)
    """Seconds, each labelled warm or cold."""
    embeddings: dict[str, int] = field(default_factory=dict)
    """Texts embedded (computed) and served from the cache (cached)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Retriever details: collection name, HNSW settings, ANN agreement."""

    def metrics(self) -> dict[str, Any]:
        """The flat `metrics` object of run.json: §7 names to numbers."""
        flat: dict[str, Any] = dict(self.result.aggregates)
        flat.update(self.stats.to_json())
        flat["indexing_seconds"] = self.timings.get("index_seconds")
        flat["query_latency_p50_ms"] = self.timings.get("query_p50_ms")
        flat["query_latency_p95_ms"] = self.timings.get("query_p95_ms")
        flat["embeddings_computed"] = self.embeddings.get("computed", 0)
        flat["embeddings_cached"] = self.embeddings.get("cached", 0)
        return flat


@dataclass
class RunResult:
    id: str
    """`YYYYmmdd-HHMMSS-xxxxxx`."""
    started: str
    """ISO time the run started."""
    candidates_file: CandidatesFile
    """The validated candidates file."""
    corpus: Corpus
    """The corpus as read."""
    queries: tuple[Query, ...]
    """The labelled queries."""
    label_set_hash: str
    """Which labels were used."""
    runs: dict[str, CandidateRun]
    """Candidate name -> its results, baseline first."""
    comparisons: dict[str, Comparison]
    """Candidate name -> comparison with the baseline."""
    gates: list[gate_rules.GateResult]
    """Every gate's outcome."""
    embedding: dict[str, Any] = field(default_factory=dict)
    """Model id and fingerprint, cache stats."""
    skipped: tuple[str, ...] = ()
    """Queries left out: no evidence and not marked abstain (drafts not yet labelled)."""
    seconds: float = 0.0
    """Wall time of the whole run."""

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)


class VectorSource:
    """Embeds chunk and query texts through the cached embedder, created on first use."""

    def __init__(self, name: str, cache_path: Path | None, show: bool | None) -> None:
        self.name = name
        self.cache_path = cache_path
        self.show = show
        self._embedder: Any = None

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            from evaluator.embedding import load_embedder
            from evaluator.embedding.cache import CachedEmbedder, EmbeddingCache

            if self.cache_path is not None:
                self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            cache = EmbeddingCache(self.cache_path or ":memory:")
            self._embedder = CachedEmbedder(load_embedder(self.name), cache)
        return self._embedder

    def embed(self, texts: Sequence[str], what: str) -> tuple[Vectors, dict[str, int]]:
        before = self.embedder.stats()
        with progress.task(f"embedding {what}", len(texts), enabled=self.show) as advance:
            vectors = self.embedder.embed(list(texts), progress=advance)
        after = self.embedder.stats()
        return vectors, {
            "computed": after.misses - before.misses,
            "cached": after.hits - before.hits,
        }


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    return float(np.percentile(np.asarray(values), q))


def _search_timed(
    retriever: Retriever, inputs: Sequence[QueryInput], depth: int
) -> tuple[dict[str, list[Ranked]], list[float]]:
    ranked: dict[str, list[Ranked]] = {}
    latencies: list[float] = []
    for q in inputs:
        t = time.perf_counter()
        ranked[q.id] = retriever.search([q], depth)[0]
        latencies.append((time.perf_counter() - t) * 1000)
    return ranked, latencies


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
    skipped = tuple(q.id for q in queries if not q.abstain and not q.evidence)
    queries = [q for q in queries if q.abstain or q.evidence]
    sanity.check_labels(queries, corpus, label_corpus_hash)
    sanity.check_gated_slices(cfile.gates.slices, queries)
    texts = {d.id: d.text for d in corpus}
    tokenizer = load_tokenizer(settings.tokenizer)
    counter = TokenCounter(tokenizer.count, texts)

    chunks_by: dict[str, list[Chunk]] = {}
    chunk_seconds: dict[str, float] = {}
    for cand in cfile.candidates:
        t = time.perf_counter()
        chunks_by[cand.name] = chunk_corpus(cand.spec, corpus)
        chunk_seconds[cand.name] = time.perf_counter() - t
        sanity.check_chunks(cand.name, chunks_by[cand.name], corpus)
    sanity.check_same_documents(chunks_by)

    vectors = VectorSource(settings.embedding, options.cache_path, options.progress)
    inputs = [QueryInput(q.id, q.text) for q in queries]
    query_embeddings: dict[str, int] = {}
    if settings.retriever != "lexical" and inputs:
        qvecs, query_embeddings = vectors.embed([q.text for q in queries], "queries")
        inputs = [QueryInput(q.id, q.text, qvecs[i]) for i, q in enumerate(queries)]

    order = [settings.baseline] + [c.name for c in cfile.candidates if c.name != settings.baseline]
    runs: dict[str, CandidateRun] = {}
    for name in order:
        cand = cfile.candidate(name)
        chunks = chunks_by[name]
        t = time.perf_counter()
        retriever, extra, embedded = _build_retriever(
            settings.retriever, cand, chunks, texts, vectors, cfile, corpus, options
        )
        index_seconds = time.perf_counter() - t
        ranked, latencies = _search_timed(retriever, inputs, settings.depth)
        if options.check_ann and settings.retriever == "chroma":
            extra["ann_agreement"] = _ann_agreement(
                ranked, chunks, texts, vectors, inputs, settings.k
            )
        result = evaluate(queries, ranked, chunks, settings=settings, texts=texts,
                          count_tokens=counter, name=name)  # fmt: skip
        # Warm means the index itself was reused (Chroma), or every vector came from the
        # cache (exact, which has no index to keep).
        if settings.retriever == "chroma":
            warm = bool(extra.get("reused"))
        else:
            warm = embedded.get("computed", 0) == 0 and embedded.get("cached", 0) > 0
        warmth = "warm" if warm else "cold"
        runs[name] = CandidateRun(
            cand, chunks, ranked, result, index_stats(chunks, texts, counter),
            timings={
                "chunk_seconds": round(chunk_seconds[name], 4),
                "index_seconds": round(index_seconds, 4),
                "index_kind": warmth if settings.retriever != "lexical" else "cold",
                "query_p50_ms": _percentile(latencies, 50),
                "query_p95_ms": _percentile(latencies, 95),
            },
            embeddings=embedded,
            extra=extra,
        )  # fmt: skip
    base = runs[settings.baseline].result
    comparisons = {
        name: compare(base, run.result, resamples=settings.resamples, seed=settings.seed)
        for name, run in runs.items()
        if name != settings.baseline
    }
    gate_results = gate_rules.check(
        cfile.gates, comparisons, {n: r.stats.chunk_count for n, r in runs.items()}
    )
    embedding_info: dict[str, Any] = {"name": settings.embedding}
    if settings.retriever != "lexical":
        emb = vectors.embedder
        stats = emb.stats()
        embedding_info.update(
            model_id=emb.model_id, fingerprint=emb.fingerprint,
            cache={"hits": stats.hits, "misses": stats.misses}, queries=query_embeddings,
        )  # fmt: skip
    return RunResult(
        id=started_at.strftime("%Y%m%d-%H%M%S-") + f"{started_at.microsecond:06d}",
        started=started_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        candidates_file=cfile,
        corpus=corpus,
        queries=tuple(queries),
        label_set_hash=label_set_hash,
        runs=runs,
        comparisons=comparisons,
        gates=gate_results,
        embedding=embedding_info,
        skipped=skipped,
        seconds=time.perf_counter() - started,
    )


def _build_retriever(
    kind: str,
    cand: Candidate,
    chunks: list[Chunk],
    texts: dict[str, str],
    vectors: VectorSource,
    cfile: CandidatesFile,
    corpus: Corpus,
    options: RunOptions,
) -> tuple[Retriever, dict[str, Any], dict[str, int]]:
    if kind == "lexical":
        return LexicalRetriever(chunks, texts), {}, {}
    if kind == "exact":
        vecs, embedded = vectors.embed([embedded_text(c, texts) for c in chunks], cand.name)
        return ExactRetriever(chunks, vecs), {}, embedded
    from evaluator.chroma_index import open_chroma_retriever

    chroma, extra, embedded = open_chroma_retriever(cand, chunks, texts, vectors, corpus, options)
    return chroma, extra, embedded


def _ann_agreement(
    ranked: dict[str, list[Ranked]],
    chunks: list[Chunk],
    texts: dict[str, str],
    vectors: VectorSource,
    inputs: Sequence[QueryInput],
    k: int,
) -> float | None:
    """Mean share of Chroma's top-k that the exact retriever also puts in its top-k."""
    vecs, _ = vectors.embed([embedded_text(c, texts) for c in chunks], "exact check")
    exact = ExactRetriever(chunks, vecs).search(inputs, k)
    shares = []
    for q, ex in zip(inputs, exact, strict=True):
        approx = {r.chunk.id for r in ranked[q.id][:k]}
        want = {r.chunk.id for r in ex}
        if want:
            shares.append(len(approx & want) / len(want))
    return statistics.fmean(shares) if shares else None

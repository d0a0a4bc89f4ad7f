"""Cost of every §7 measure on 10,000 queries over ~1,000 documents and ~50,000 chunks.

The side-by-side baseline is building the ranked lists themselves (depth 50 per query),
the least any evaluation does; the comparison of two candidates is timed as well.
Run: pytest tests/benchmarks -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from evaluator.chunk import Chunk
from evaluator.metrics import CandidateResult, ChunkIndex, MetricSettings, evaluate
from evaluator.metrics.compare import compare
from evaluator.retrieval.base import Ranked
from labeler.core.values import Boundary, Query, Span

N_DOCS = 1_000
N_QUERIES = 10_000
ROUNDS = 3
SIZE, STEP = 150, 100  # character windows with 50 of overlap: ~50k chunks over ~5M chars
SETTINGS = MetricSettings(k=5, depth=50, coverage_threshold=0.8, duplicate_threshold=0.7)
WORDS = ("refund", "invoice", "within", "days", "account", "the", "customer", "may", "plan")
SLICES = ("critical", "tables", "lang:de", "faq", "billing")
T = TypeVar("T")


def corpus(rng: random.Random) -> dict[str, str]:
    return {
        f"doc-{i:04d}.md": " ".join(rng.choices(WORDS, k=rng.randint(500, 1_300)))
        for i in range(N_DOCS)
    }


def windows(texts: dict[str, str]) -> list[Chunk]:
    chunks = []
    for doc, text in texts.items():
        for start in range(0, max(1, len(text) - SIZE + STEP), STEP):
            end = min(start + SIZE, len(text))
            chunks.append(Chunk(f"{doc}@{start}", doc, start, end))
    return chunks


def evidence(rng: random.Random, texts: dict[str, str], docs: list[str]) -> list[Span]:
    spans: list[Span] = []
    for doc in rng.sample(docs, rng.choice((1, 1, 1, 2))):  # a quarter cross documents
        for _ in range(rng.choice((1, 1, 2, 3))):
            length = rng.randint(40, 300)
            start = rng.randrange(0, len(texts[doc]) - length)
            if all(s.doc != doc or s.end <= start or start + length <= s.start for s in spans):
                spans.append(Span.from_text(texts[doc], doc, start, start + length))
    return spans


def queries(rng: random.Random, texts: dict[str, str]) -> list[Query]:
    docs, made = list(texts), []
    for i in range(N_QUERIES):
        abstain = rng.random() < 0.1
        made.append(
            Query(
                f"q-{i:05d}",
                f"question {i}",
                abstain,
                rng.choice(list(Boundary)),
                tuple(rng.sample(SLICES, rng.randint(0, 2))),
                evidence=() if abstain else tuple(evidence(rng, texts, docs)),
            )
        )
    return made


def retrievals(
    rng: random.Random, qs: Sequence[Query], index: ChunkIndex, chunks: Sequence[Chunk]
) -> dict[str, tuple[list[int], list[float]]]:
    """What a retriever hands back, as Chroma does: chunk positions and scores, depth 50.

    Chunks near the evidence are mixed into random ones, so every rank case occurs.
    """
    position = {c.id: i for i, c in enumerate(chunks)}
    results = {}
    for q in qs:
        near = [c for s in q.evidence for c in index.touching(s.doc, s.start - 200, s.end + 200)]
        ids = list(
            dict.fromkeys(
                [position[c.id] for c in near[:10]] + rng.sample(range(len(chunks)), SETTINGS.depth)
            )
        )
        rng.shuffle(ids)
        results[q.id] = (ids[: SETTINGS.depth], [0.9 - r / 100 for r in range(SETTINGS.depth)])
    return results


def ranked_lists(
    results: dict[str, tuple[list[int], list[float]]], chunks: Sequence[Chunk]
) -> dict[str, list[Ranked]]:
    """The side-by-side baseline: only turning retriever output into ranked lists."""
    return {
        qid: [Ranked(chunks[i], s) for i, s in zip(ids, scores, strict=False)]
        for qid, (ids, scores) in results.items()
    }


def count_words(text: str) -> int:
    return text.count(" ") + 1


def timed(work: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def test_metrics_cost_against_building_the_ranked_lists() -> None:
    rng = random.Random(7)
    texts = corpus(rng)
    chunks = windows(texts)
    qs = queries(rng, texts)
    index = ChunkIndex.build(chunks)
    first, second = (retrievals(random.Random(i), qs, index, chunks) for i in (1, 2))
    gc.collect()
    gc.freeze()  # the generated corpus is long-lived: keep full collections out of the timing

    def measure(ranked: dict[str, list[Ranked]]) -> CandidateResult:
        return evaluate(qs, ranked, index, settings=SETTINGS, texts=texts, count_tokens=count_words)

    builds, measures = [], []
    for _ in range(ROUNDS):  # interleaved, best of each: the machine is shared and noisy
        build, ranked = timed(lambda: ranked_lists(first, chunks))
        cost, base = timed(lambda: measure(ranked))  # noqa: B023 - called at once
        builds.append(build)
        measures.append(cost)
    cand = measure(ranked_lists(second, chunks))
    comparing, comparison = timed(lambda: compare(base, cand))
    gc.unfreeze()

    build, cost = min(builds), min(measures)
    print(
        f"\n{len(texts)} docs, {len(chunks)} chunks, {len(qs)} queries, depth {SETTINGS.depth}"
        f"\nranked lists: {build:.2f} s ({build / len(qs) * 1e6:.0f} µs/query)"
        f"\nall metrics + breakdowns: {cost:.2f} s ({cost / len(qs) * 1e6:.0f} µs/query)"
        f"\nratio metrics / ranked lists: {cost / build:.2f} (best of {ROUNDS} each)"
        f"\ncompare (bootstrap 10,000, McNemar): {comparing:.2f} s"
    )
    assert len(base.per_query) == N_QUERIES
    assert comparison.significance.decisive

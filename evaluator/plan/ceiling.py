"""The ceiling of a chunking: recall and hit a perfect ranking would reach with n chunks, or
within the context budget (§17).

For each query the best n chunks (or the best set whose tokens fit the budget) are chosen
among those touching its evidence, then handed to the same `evaluate` a run uses as if a
retriever had ranked them first, so the ceiling is measured by the run's own match rules
and, at budget, by the verdict's own fill rule (`in_budget`: the chunk that would cross the
budget is left out). With n = None it is the oracle (the whole index).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from math import comb

from evaluator.chunk import Chunk
from evaluator.metrics.evaluate import measure_queries, reduce_all
from evaluator.metrics.evidence import EvidenceRecall, Hit
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.sent import Sending
from evaluator.metrics.settings import MetricSettings
from evaluator.metrics.view import coverage, covers
from evaluator.plan.model import Ceiling
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query

SEARCHED = 20_000
"""Sets of n chunks tried per query; past it the best set is built greedily (a lower bound)."""
RULES = ("chunk", "union")


@dataclass(frozen=True)
class Sent:
    """A context candidate's units (§18): the ceiling picks among what can be sent, then
    ranks a retrieval chunk sent as each, so the run's own `Sending` merges windows."""

    sending: Sending
    """Retrieval unit -> what is sent for it."""
    retrieved: Mapping[str, Chunk]
    """Sent unit id -> a retrieval chunk it is sent for."""


def ceilings(
    queries: Sequence[Query],
    index: ChunkIndex,
    settings: MetricSettings,
    counter: TokenCounter,
    sizes: Sequence[int | None],
    sent: Sent | None = None,
    budget: int | None = None,
) -> tuple[Ceiling, ...]:
    """The ceiling under both rules at each chunk count in `sizes` (None: the oracle) and, with
    `budget`, at that context budget; with `sent`, `index` holds what can be sent and the
    ceiling is on what is sent."""
    out: list[Ceiling] = []
    for rule in RULES:
        ruled = replace(settings, match=rule)
        pools = pools_of(queries, index, ruled)
        oracle = ceiling(queries, index, ruled, counter, None, sent, pools)
        widest = max((len(p) for p in pools.values()), default=0)
        for n in dict.fromkeys(sizes):
            if n is None or (n >= widest and n > 0):  # every pool fits: the oracle's figures
                out.append(replace(oracle, chunks=n))
            else:
                out.append(ceiling(queries, index, ruled, counter, n, sent, pools))
        if budget is not None:
            out.append(ceiling_at_budget(queries, index, ruled, counter, budget, sent, pools))
    return tuple(out)


def ceiling_at_budget(
    queries: Sequence[Query],
    index: ChunkIndex,
    settings: MetricSettings,
    counter: TokenCounter,
    budget: int,
    sent: Sent | None = None,
    pools: Mapping[str, list[Chunk]] | None = None,
) -> Ceiling:
    """Recall and hit with each query's best set of units whose tokens fit `budget` ranked
    first, measured at that budget exactly as the verdict is (`settings.budget`)."""
    if not queries:
        return Ceiling(settings.match, None, None, None, budget=budget)
    pools = pools if pools is not None else pools_of(queries, index, settings)
    chosen, greedy = {}, 0
    for q in queries:
        chosen[q.id], searched = best_within(q, settings, pools[q.id], counter, budget)
        greedy += not searched
    back = sent.retrieved if sent is not None else {}
    ranked = {qid: [Ranked(back.get(c.id, c), 1.0) for c in cs] for qid, cs in chosen.items()}
    k = max(1, *(len(cs) for cs in chosen.values()))
    measures = (EvidenceRecall(), Hit())
    at = replace(settings, k=k, depth=k, budget=budget)
    per_query, _ = measure_queries(queries, ranked, index, at, counter, measures,
                                   sent.sending if sent is not None else None,
                                   with_causes=False)  # fmt: skip
    found = reduce_all(measures, per_query, per_query)
    return Ceiling(settings.match, None, found["evidence_recall@k"], found["hit@k"], greedy,
                   budget)  # fmt: skip


def best_within(
    query: Query,
    settings: MetricSettings,
    chunks: Sequence[Chunk],
    counter: TokenCounter,
    budget: int,
) -> tuple[list[Chunk], bool]:
    """The set of `chunks` whose tokens fit `budget` that matches the most of the query's
    spans (fewer tokens break ties), and whether every set was searched (else greedy)."""
    sizes = {c.id: counter(c) for c in chunks}
    fits = [c for c in chunks if sizes[c.id] <= budget]

    def score(cs: Sequence[Chunk]) -> tuple[float, int]:
        return matched(cs, query, settings), -sum(sizes[c.id] for c in cs)

    best: tuple[tuple[float, int], list[Chunk]] = ((0.0, 0), [])
    tried = 0
    for n in range(1, len(fits) + 1):
        for cs in combinations(fits, n):
            tried += 1
            if tried > SEARCHED:
                return _greedy_within(fits, sizes, budget, score), False
            if sum(sizes[c.id] for c in cs) <= budget and score(cs) > best[0]:
                best = (score(cs), list(cs))
    return best[1], True


def _greedy_within(
    fits: Sequence[Chunk],
    sizes: Mapping[str, int],
    budget: int,
    score: Callable[[Sequence[Chunk]], tuple[float, int]],
) -> list[Chunk]:
    picked: list[Chunk] = []
    left = budget
    while True:
        rest = [c for c in fits if c not in picked and sizes[c.id] <= left]
        if not rest:
            return picked
        top = max(rest, key=lambda c: score([*picked, c]))
        if score([*picked, top]) <= score(picked):
            return picked
        picked.append(top)
        left -= sizes[top.id]


def ceiling(
    queries: Sequence[Query],
    index: ChunkIndex,
    settings: MetricSettings,
    counter: TokenCounter,
    n: int | None,
    sent: Sent | None = None,
    pools: Mapping[str, list[Chunk]] | None = None,
) -> Ceiling:
    """Recall and hit with each query's best `n` chunks ranked first, under `settings.match`
    (`pools`: each query's `pool` under these settings, when known)."""
    if not queries or n == 0:
        nothing = 0.0 if queries else None
        return Ceiling(settings.match, n, nothing, nothing)
    pools = pools if pools is not None else pools_of(queries, index, settings)
    chosen = {q.id: best_chunks(q, index, settings, n, pools[q.id]) for q in queries}
    back = sent.retrieved if sent is not None else {}
    ranked = {qid: [Ranked(back.get(c.id, c), 1.0) for c in cs] for qid, cs in chosen.items()}
    k = n if n is not None else max(1, *(len(cs) for cs in chosen.values()))
    measures = (EvidenceRecall(), Hit())
    per_query, _ = measure_queries(queries, ranked, index, replace(settings, k=k, depth=k),
                                   counter, measures, sent.sending if sent is not None else None,
                                   with_causes=False)  # fmt: skip
    found = reduce_all(measures, per_query, per_query)
    greedy = sum(1 for q in queries if _greedy(pools[q.id], n))
    return Ceiling(settings.match, n, found["evidence_recall@k"], found["hit@k"], greedy)


def pools_of(
    queries: Sequence[Query], index: ChunkIndex, settings: MetricSettings
) -> dict[str, list[Chunk]]:
    """Each query's `pool`, by query id."""
    return {q.id: pool(q, index, settings) for q in queries}


def pool(query: Query, index: ChunkIndex, settings: MetricSettings) -> list[Chunk]:
    """The chunks that can count for the query: under `chunk` those that match a span alone,
    under `union` every chunk touching one."""
    found: dict[tuple[str, int, int], Chunk] = {}
    for s in query.evidence:
        for c in index.touching(s.doc, s.start, s.end):
            found.setdefault((c.doc, c.start, c.end), c)
    if settings.match == "union":
        return list(found.values())
    threshold = settings.coverage_threshold
    return [c for c in found.values() if any(covers(c, s, threshold) for s in query.evidence)]


def _greedy(chunks: Sequence[Chunk], n: int | None) -> bool:
    return n is not None and len(chunks) > n and comb(len(chunks), n) > SEARCHED


def best_chunks(
    query: Query,
    index: ChunkIndex,
    settings: MetricSettings,
    n: int | None,
    chunks: list[Chunk] | None = None,
) -> list[Chunk]:
    """The n chunks (all, when None) that match the most of the query's spans (`chunks`: its
    `pool`, when known)."""
    chunks = pool(query, index, settings) if chunks is None else chunks
    if n is None or len(chunks) <= n:
        return chunks
    if not _greedy(chunks, n):
        return list(max(combinations(chunks, n), key=lambda cs: matched(list(cs), query, settings)))
    picked: list[Chunk] = []
    for _ in range(n):
        rest = [c for c in chunks if c not in picked]
        picked.append(max(rest, key=lambda c: matched([*picked, c], query, settings)))
    return picked


def matched(chunks: Sequence[Chunk], query: Query, settings: MetricSettings) -> float:
    """Spans matched by these chunks under the rule; the union's coverage breaks ties."""
    threshold, spans = settings.coverage_threshold, query.evidence
    shares = [coverage(chunks, s) for s in spans]
    if settings.match == "union":
        return sum(share >= threshold for share in shares) + sum(shares) / (len(spans) + 1)
    held = sum(any(covers(c, s, threshold) for c in chunks) for s in spans)
    return held + sum(shares) / (len(spans) + 1)

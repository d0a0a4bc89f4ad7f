"""Query latency over repeated passes (§17): one pass is noise (p95 8.9 ms in one run,
45.2 ms in the next, and the first candidate pays the cold start), so every candidate is
timed `latency_repeats` times, the candidates' order shuffled by the run's seed each time.
Those passes only run when asked (a latency gate, `--latency`): they were 36 % of a warm run.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evaluator.candidates import Gates
from evaluator.retrieval.base import QueryInput, Ranked, Retriever

GATE = "max_latency_p95_ratio"
"""The gate that reads the warm passes' p95."""
NOT_MEASURED = {
    "measured": False,
    "why": "no max_latency_p95_ratio gate and no --latency asked for it",
}
"""run.json's latency plan when no warm pass ran (a run before this key always timed them)."""


def asked(gates: Gates, flag: bool) -> bool:
    """Whether this run times warm passes: `--latency`, or a latency gate in any scope."""
    tables = [gates.overall, *gates.slices.values(), *gates.patterns.values()]
    return flag or any(GATE in table for table in tables)


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


def orders(names: Sequence[str], repeats: int, seed: int) -> list[list[str]]:
    """The candidates' order in each timed pass, shuffled by `seed` (reproducible)."""
    rng = random.Random(seed)
    found = []
    for _ in range(repeats):
        order = list(names)
        rng.shuffle(order)
        found.append(order)
    return found


def warm_passes(
    retrievers: Mapping[str, Retriever],
    inputs: Sequence[QueryInput],
    depth: int,
    plan: Sequence[Sequence[str]],
) -> dict[str, dict[str, Any]]:
    """Each candidate's warm latency: per pass p50 and p95, then their medians and spread."""
    p50s: dict[str, list[float]] = {n: [] for n in retrievers}
    p95s: dict[str, list[float]] = {n: [] for n in retrievers}
    for order in plan:
        for name in order:
            _, latencies = search_timed(retrievers[name], inputs, depth)
            if latencies:
                p50s[name].append(float(np.percentile(latencies, 50)))
                p95s[name].append(float(np.percentile(latencies, 95)))
    return {name: _summary(p50s[name], p95s[name]) for name in retrievers}


def _summary(p50s: list[float], p95s: list[float]) -> dict[str, Any]:
    if not p95s:
        return {"query_p50_ms": None, "query_p95_ms": None}
    return {
        "query_kind": "warm",
        "query_p50_ms": round(statistics.median(p50s), 4),
        "query_p95_ms": round(statistics.median(p95s), 4),
        "query_p95_spread_ms": [round(min(p95s), 4), round(max(p95s), 4)],
        "query_passes": len(p95s),
    }

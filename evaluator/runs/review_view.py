"""What a reviewer needs beside recall (§17), one definition for report.md and the terminal:
evidence relevance beside context completeness, unique evidence, abstention top-1, the
costs, latency and `--check-ann` agreement; and the breakdowns each shows by dimension.

Every cell is read from the RunFile, so the two views cannot disagree with run.json.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from evaluator.metrics.registry import (
    ABSTENTION_TOP1,
    CHUNK_COUNT,
    DOCUMENT_HIT,
    DUPLICATES,
    HIT,
    PROMPT_TOKENS,
    RECALL,
    UNIQUE_EVIDENCE,
    shown,
)
from evaluator.runs.model import RunFile
from evaluator.runs.model_parts import CandidateRecord

BREAKDOWNS = (("slice", "slice"), ("boundary", "boundary pattern"), ("doc", "document"),
              ("format", "document format"), ("length", "evidence length"))  # fmt: skip
"""Every breakdown, as run.json names it and as a reader reads it."""


@dataclass(frozen=True)
class Column:
    """One figure of the reviewer's table."""

    head: str
    """Its heading in report.md."""
    short: str
    """Its heading on an 80-column terminal."""
    cell: Callable[[RunFile, CandidateRecord], str]
    """The candidate's value in the run, formatted."""


def _measure(name: str) -> Callable[[RunFile, CandidateRecord], str]:
    return lambda _run, cand: shown(name).text(cand.metric(name))


def groups(run: RunFile, ids: Collection[str] | None = None) -> int:
    """Evidence groups over the answerable queries (`ids` only, when given; §18:
    alternatives are one group)."""
    return sum(len({("alone", n) if e.group is None else e.group
                    for n, e in enumerate(q.evidence)})
               for qid, q in run.queries.items()
               if q.answerable and (ids is None or qid in ids))  # fmt: skip


def answerable(run: RunFile, ids: Collection[str] | None = None) -> int:
    """Answerable queries of the run (`ids` only, when given)."""
    return sum(1 for qid, q in run.queries.items()
               if q.answerable and (ids is None or qid in ids))  # fmt: skip


def unique_count(run: RunFile, mean: float | None, ids: Collection[str] | None = None) -> str:
    """unique evidence as the count it is: `84/94 groups` (the per-query mean × answerable
    queries, over every group labelled), never a share-looking 1.235."""
    if mean is None:
        return "–"
    return f"{round(mean * answerable(run, ids))}/{groups(run, ids)} groups"


def _unique(run: RunFile, cand: CandidateRecord) -> str:
    return unique_count(run, cand.metric(UNIQUE_EVIDENCE))


def _latency(_run: RunFile, cand: CandidateRecord) -> str:
    p50, p95 = cand.metric("query_latency_p50_ms"), cand.metric("query_latency_p95_ms")
    if p50 is None or p95 is None:
        return "–"
    return f"{p50:.1f} / {p95:.1f}"


def _ann(_run: RunFile, cand: CandidateRecord) -> str:
    value = cand.index.get("ann_agreement")
    return "–" if not isinstance(value, int | float) else f"{value:.3f}"


COLUMNS = (
    Column("hit@k (context completeness)", "hit@k", _measure(HIT)),
    Column("doc hit@k (evidence relevance)", "doc hit", _measure(DOCUMENT_HIT)),
    Column("unique evidence (groups found / labelled)", "unique", _unique),
    Column(shown(ABSTENTION_TOP1).short, "abst@1", _measure(ABSTENTION_TOP1)),
    Column(shown(PROMPT_TOKENS).short, "tokens", _measure(PROMPT_TOKENS)),
    Column(shown(CHUNK_COUNT).short, "chunks", _measure(CHUNK_COUNT)),
    Column(shown(DUPLICATES).short, "dup", _measure(DUPLICATES)),
    Column("latency p50 / p95 ms", "p50/p95 ms", _latency),
    Column("`--check-ann` agreement", "ANN", _ann),
)
"""The reviewer's table: evidence, then cost; `–` where the run did not measure it."""

LEGEND = ("hit@k: every evidence group in the top k (context completeness) · doc hit: every "
          "evidence document in the top k, a group's by either copy (evidence relevance) · "
          "unique: evidence groups found / labelled, alternatives once · abst@1: abstention "
          "queries' top-1 cosine similarity, – where the retriever's scores are none "
          "(lexical, hybrid, ranked, http, rerank) · tokens: prompt tokens@k · "
          "ANN: Chroma's top k shared with exact search (--check-ann)")  # fmt: skip
"""What the terminal's short headings mean."""


def review_rows(run: RunFile) -> list[tuple[str, list[str]]]:
    """(candidate, cells) per candidate, baseline first."""
    return [(c.name, [col.cell(run, c) for col in COLUMNS]) for c in run.candidates]


def measured(run: RunFile) -> list[int]:
    """The columns some candidate has a value in (ANN agreement only with --check-ann)."""
    rows = [cells for _, cells in review_rows(run)]
    return [i for i in range(len(COLUMNS)) if any(r[i] != "–" for r in rows)]


def breakdown_rows(run: RunFile, dim: str) -> list[tuple[str, int, list[str]]]:
    """(key, answerable queries, each candidate's recall@k) for one breakdown, in its
    order; empty when the run does not hold that breakdown (a run from before it)."""
    groups = run.baseline.breakdowns.get(dim) or {}
    counts = answerable_by(run, dim)
    fmt = shown(RECALL)
    return [(key, counts.get(key, 0),
             [fmt.text(_group_recall(c, dim, key)) for c in run.candidates])
            for key in groups]  # fmt: skip


def _group_recall(cand: CandidateRecord, dim: str, key: str) -> float | None:
    group = cand.breakdowns.get(dim, {}).get(key)
    return None if group is None else group.metrics.get(RECALL)


def answerable_by(run: RunFile, dim: str) -> dict[str, int]:
    """Answerable queries per key of a breakdown."""
    counts: dict[str, int] = {}
    for q in run.queries.values():
        for key in q.facets.keys(dim) if q.answerable else ():
            counts[key] = counts.get(key, 0) + 1
    return counts

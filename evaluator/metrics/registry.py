"""Every §7 figure in one place: the measures in report order, the index figures, and how
each is shown (ir_measures' registry; Textual's BINDINGS).

Adding a measure is one class with its `shown` and one line in `MEASURES`: report.md,
the terminal summary, triage, gates, the comparison and the frontier all read names,
labels, formats and directions from here.
"""

from __future__ import annotations

from evaluator.metrics.abstention import AbstentionTop1
from evaluator.metrics.base import Measure
from evaluator.metrics.budget import DuplicatePairs, PromptTokens
from evaluator.metrics.chroma import (
    ChromaIoU,
    ChromaPrecision,
    ChromaPrecisionOmega,
    ChromaRecall,
)
from evaluator.metrics.evidence import (
    DocumentHit,
    EvidenceCoverage,
    EvidenceRecall,
    Hit,
    OracleRecall,
    UniqueEvidence,
)
from evaluator.metrics.ranks import FirstMatchRank, MeanFirstMatchRank
from evaluator.metrics.shown import Better, Shown

MEASURES: tuple[Measure, ...] = (
    EvidenceRecall(),
    Hit(),
    DocumentHit(),
    OracleRecall(),
    EvidenceCoverage(),
    FirstMatchRank(),
    MeanFirstMatchRank(),
    DuplicatePairs(),
    UniqueEvidence(),
    PromptTokens(),
    ChromaRecall(),
    ChromaPrecision(),
    ChromaIoU(),
    ChromaPrecisionOmega(),
    AbstentionTop1(),
)
"""Every per-query measure, in report order."""

RULED: tuple[Measure, ...] = tuple(
    m for m in MEASURES
    if isinstance(m, EvidenceRecall | Hit | OracleRecall | FirstMatchRank | MeanFirstMatchRank
                  | UniqueEvidence | AbstentionTop1)
)  # fmt: skip
"""What a run measures again under the other match rule (§7): every measure whose value
depends on the rule, and abstention's top-1 so the comparison pairs abstention queries."""

RECALL = EvidenceRecall.name
"""The headline measure: compared with a bootstrap interval, gated by `min_recall_delta`."""
HIT = Hit.name
"""Whether a query is a hit: what gained and lost are decided on."""
ORACLE = OracleRecall.name
"""Below 1 means a boundary cut some span: the `cut` cause."""
COVERAGE = EvidenceCoverage.name
"""Per span, the share the top k cover together: at the threshold without a match, `split`."""
FIRST_RANKS = FirstMatchRank.name
"""Per span, the first matching rank within depth: None is the `disappeared` cause."""
DUPLICATES = DuplicatePairs.name
"""Gated by `max_duplicate_pairs_delta`; the frontier's second axis."""
ABSTENTION_TOP1 = AbstentionTop1.name
"""Gated by `max_abstention_top1_delta`."""
DOCUMENT_HIT = DocumentHit.name
"""Every evidence document in the top k."""
MEAN_FIRST_RANK = MeanFirstMatchRank.name
"""The mean first-match rank of a query's spans."""
UNIQUE_EVIDENCE = UniqueEvidence.name
"""Distinct labelled spans matched in the top k."""
PROMPT_TOKENS = PromptTokens.name
"""Tokens in the top k chunks: what a prompt pays."""
CHROMA_RECALL = ChromaRecall.name
"""Chroma's character recall."""
CHROMA_PRECISION = ChromaPrecision.name
"""Chroma's character precision."""
CHROMA_IOU = ChromaIoU.name
"""Chroma's character IoU."""
CHROMA_PRECISION_OMEGA = ChromaPrecisionOmega.name
"""Chroma's precision Ω: the best IoU the chunking allows."""
CHUNK_COUNT = "chunk_count"
"""The index size: gated by `max_chunk_count_ratio`; the frontier's first axis."""
INDEXED_TOKENS = "indexed_tokens"
"""Tokens embedded over the whole index."""

FIGURES: dict[str, Shown] = {
    CHUNK_COUNT: Shown("chunks", "chunks", "{:.0f}", Better.NEITHER),
    "indexed_chars": Shown("indexed chars", "chars", "{:.0f}", Better.NEITHER),
    INDEXED_TOKENS: Shown("indexed tokens", "tokens", "{:.0f}", Better.NEITHER),
    "mean_chunk_tokens": Shown("mean chunk tokens", "mean tok", "{:.1f}", Better.NEITHER),
    "max_chunk_tokens": Shown("max chunk tokens", "max tok", "{:.0f}", Better.NEITHER),
    "indexing_seconds": Shown("indexing seconds", "index s", "{:.2f}", Better.LOWER),
    "query_latency_p50_ms": Shown("query p50 ms", "p50 ms", "{:.1f}", Better.LOWER),
    "query_latency_p95_ms": Shown("query p95 ms", "p95 ms", "{:.1f}", Better.LOWER),
    "embeddings_computed": Shown("embedded", "embedded", "{:.0f}", Better.NEITHER),
    "embeddings_cached": Shown("from cache", "cached", "{:.0f}", Better.NEITHER),
    "embedding_requests": Shown("embedding requests", "emb req", "{:.0f}", Better.NEITHER),
    "vector_bytes": Shown("vector bytes", "vec bytes", "{:.0f}", Better.LOWER),
}
"""Per-candidate figures that are not per-query measures: index size, timings, cache."""

SUMMARY: tuple[str, ...] = (
    RECALL, HIT, DOCUMENT_HIT, ORACLE, MEAN_FIRST_RANK, UNIQUE_EVIDENCE, DUPLICATES,
    PROMPT_TOKENS, CHROMA_RECALL, CHROMA_PRECISION, CHROMA_IOU, CHROMA_PRECISION_OMEGA,
    ABSTENTION_TOP1, CHUNK_COUNT, INDEXED_TOKENS,
)  # fmt: skip
"""What a candidate's summary shows (triage's metrics table), top to bottom: every column
of report.md and the other aggregates; per-span figures (first ranks, coverage) stay in
the query view and timings in the report. Fifteen rows: with the header and the paired
statistics they fill an 80×24 summary."""

SHOWN: dict[str, Shown] = {m.name: m.shown for m in MEASURES} | FIGURES
"""Every figure in a candidate's `metrics`, by name."""


def shown(name: str) -> Shown:
    """How the figure `name` is shown; a ValueError names an unknown one."""
    try:
        return SHOWN[name]
    except KeyError:
        raise ValueError(f"unknown figure {name!r} (known: {', '.join(SHOWN)})") from None

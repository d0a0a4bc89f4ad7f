"""What a run produced, as values: per candidate its chunks, ranked lists and measures.

`pipeline.record` turns these into a RunFile for the run folder; nothing here is written
or rendered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.candidates import Candidate, CandidatesFile
from evaluator.chunk import Chunk
from evaluator.generation.run_file import AnswerRecord
from evaluator.generation.summary import GenerationSummary
from evaluator.metrics import CandidateResult
from evaluator.metrics.compare import Comparison
from evaluator.metrics.sent import Sending
from evaluator.metrics.stats import IndexStats
from evaluator.retrieval.base import Ranked
from evaluator.runs.model_parts import GateRecord
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query


@dataclass
class CandidateRun:
    candidate: Candidate
    """What was run."""
    chunks: Sequence[Chunk]
    """Every chunk of the candidate's index."""
    ranked: dict[str, list[Ranked]]
    """Query id -> ranked list to depth."""
    result: CandidateResult
    """Per-query and aggregate measures, under the declared match rule (which gates)."""
    stats: IndexStats
    """Size of the index."""
    timings: dict[str, Any] = field(default_factory=dict)
    """Seconds, each labelled warm or cold."""
    embeddings: dict[str, int] = field(default_factory=dict)
    """Texts embedded (computed) and served from the cache (cached)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Retriever details: collection name, HNSW settings, ANN agreement."""
    other: CandidateResult | None = None
    """The rule-dependent measures again under the other match rule (§7), for reports."""
    sent: dict[str, list[Ranked]] = field(default_factory=dict)
    """Query id -> per rank, what was sent for that rank's chunk (§18); empty when the
    candidate sends its chunks themselves."""
    at_budget: CandidateResult | None = None
    """Every measure at the context budget under the declared rule (§17)."""
    at_budget_other: CandidateResult | None = None
    """The rule-dependent measures at the context budget under the other rule."""
    curve: dict[str, Any] = field(default_factory=dict)
    """Recall and hit at each budget of the ladder, and their areas (§17)."""
    vector_bytes: int | None = None
    """Bytes of the index's vectors as stored (float32); None without vectors."""
    budget_cuts: dict[str, int] = field(default_factory=dict)
    """Query id -> how many ranks the context budget sends (§17's fill rule)."""
    units: Sequence[Chunk] = ()
    """Every unit it can send for one retrieved chunk (§18: parents, or each chunk's window);
    empty when it sends its chunks."""
    sending: Sending | None = None
    """What a rank sends (§18), for the prompts of generation; None: the chunk itself."""

    def metrics(self) -> dict[str, Any]:
        """The flat `metrics` object of run.json: §7 names to numbers."""
        flat: dict[str, Any] = dict(self.result.aggregates)
        flat.update(self.stats.to_json())
        flat["indexing_seconds"] = self.timings.get("index_seconds")
        flat["query_latency_p50_ms"] = self.timings.get("query_p50_ms")
        flat["query_latency_p95_ms"] = self.timings.get("query_p95_ms")
        flat["embeddings_computed"] = self.embeddings.get("computed", 0)
        flat["embeddings_cached"] = self.embeddings.get("cached", 0)
        flat["embedding_requests"] = flat["embeddings_computed"] + flat["embeddings_cached"]
        flat["vector_bytes"] = self.vector_bytes
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
    gates: list[GateRecord]
    """Every gate's outcome."""
    other_comparisons: dict[str, Comparison] = field(default_factory=dict)
    """Candidate name -> comparison with the baseline under the other match rule."""
    embedding: dict[str, Any] = field(default_factory=dict)
    """Model id and fingerprint, cache stats."""
    skipped: tuple[str, ...] = ()
    """Queries left out: no evidence and not marked abstain (drafts, or orphaned)."""
    orphaned: tuple[str, ...] = ()
    """Of those, the labelled or reviewed ones: their evidence was orphaned."""
    seconds: float = 0.0
    """Wall time of the whole run."""
    budget_comparisons: dict[str, Comparison] = field(default_factory=dict)
    """Candidate name -> comparison with the baseline at the context budget (§17)."""
    other_basis_gates: list[GateRecord] = field(default_factory=list)
    """Every gate on the basis that does not decide (at k when budget decides, and so on)."""
    context_budget: dict[str, Any] = field(default_factory=dict)
    """The budget, the crossing rule, the deciding basis, how each was chosen; latency plan."""
    generation: GenerationSummary | None = None
    """The answers in figures (§23); None without `[generation]`."""
    answers: tuple[AnswerRecord, ...] = ()
    """Every query × candidate answer, for generation.jsonl."""

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)

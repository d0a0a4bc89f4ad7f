"""A plan as plain values: what each candidate's chunking allows before anything is embedded.

The plan wing computes these from chunk offsets and token counts alone; `to_json` is the
`--json` shape and the terminal table reads the same attributes, so the two never disagree.
Outside text (the characters beside a boundary, an anchor's words) passed the display rule
when it was put here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ChunkFigures:
    """One candidate's chunks in numbers (§17): size, lengths, overlap, index."""

    chunk_count: int
    """Chunks over the corpus."""
    tokens_mean: float | None
    """Mean tokens per chunk (settings' tokenizer, prefix included); None with no chunk."""
    tokens_p50: float | None
    """Median tokens per chunk."""
    tokens_p95: float | None
    """95th percentile of tokens per chunk."""
    tokens_max: int | None
    """The largest chunk in tokens."""
    indexed_tokens: int
    """Σ tokens per chunk."""
    indexed_chars: int
    """Σ characters per chunk, prefix included: what is embedded."""
    covered_chars: int
    """Characters of the corpus inside some chunk, each once."""
    vector_bytes: int | None
    """chunk_count × the model's width × 4 (float32); None when the width is unknown."""

    @property
    def realized_overlap(self) -> float | None:
        """indexed_chars / covered_chars: how many times a character is embedded."""
        return self.indexed_chars / self.covered_chars if self.covered_chars else None


@dataclass(frozen=True)
class EmbeddingCost:
    """What indexing this candidate would embed, against the cache, and how long it takes."""

    texts: int
    """Distinct chunk texts to embed."""
    cached: int | None
    """Of them, already in the embedding cache; None when the cache was not probed."""
    texts_per_second: float | None
    """The throughput the cache last measured for this model; None when never measured."""

    @property
    def new(self) -> int | None:
        return None if self.cached is None else self.texts - self.cached

    @property
    def seconds(self) -> float | None:
        """new / throughput: the time to embed what the cache lacks."""
        if self.new is None or not self.texts_per_second:
            return None
        return self.new / self.texts_per_second


@dataclass(frozen=True)
class Ceiling:
    """The best a perfect ranking could do with this chunking, under one match rule."""

    rule: str
    """chunk | union (§7)."""
    chunks: int | None
    """Chunks a query may take; None for the whole index (the oracle)."""
    recall: float | None
    """Mean share of a query's spans matched; None without answerable queries."""
    hit: float | None
    """Share of queries with every span matched."""
    greedy: int = 0
    """Queries whose best set was too many to search and was built greedily (a lower bound)."""
    budget: int | None = None
    """At this context budget (tokens, the verdict's fill rule) rather than a chunk count."""


@dataclass(frozen=True)
class Boundary:
    """A chunk boundary inside a span: where it falls and the characters either side."""

    offset: int
    """Code point offset in the document."""
    before: str
    """Up to a few characters before it, through the display rule."""
    after: str
    """Up to a few characters after it, through the display rule."""

    @property
    def said(self) -> str:
        """`"R|efunds" at 160`."""
        return f'"{self.before}|{self.after}" at {self.offset}'


@dataclass(frozen=True)
class Hold:
    """What would hold a range (a span, or a question's anchor with its evidence) in one chunk."""

    length: int
    """The range's length in the candidate's unit."""
    overlap: int | None
    """Least overlap that holds it where it sits at this size; None when none does."""
    words: str
    """The advice in a reader's words (§17)."""


@dataclass(frozen=True)
class SpanCut:
    """One candidate cut one span: no single chunk holds it."""

    candidate: str
    """The candidate's name."""
    boundaries: tuple[Boundary, ...]
    """Its boundaries inside the span, in offset order."""
    hold: Hold
    """What would hold it."""


@dataclass(frozen=True)
class AnchorFit:
    """Whether one candidate holds a question's anchor and its evidence in one chunk."""

    candidate: str
    """The candidate's name."""
    held: bool
    """Some chunk holds anchor and evidence together."""
    hold: Hold | None
    """When not held: what would."""


@dataclass(frozen=True)
class Anchor:
    """Where a question's own words sit in the evidence's document, apart from the evidence
    (seed 002's "customs clearance" 88 characters before its "9 dollars")."""

    words: str
    """The words as the document has them, through the display rule."""
    start: int
    """Where they start."""
    end: int
    """Where they end."""
    before: bool
    """The anchor sits before the evidence (else after it)."""
    distance: int
    """Before: characters from the anchor's start to the evidence's start; after: from the
    evidence's end to the anchor's start."""
    reach: int
    """Characters a chunk must hold to have both: first to last of anchor and evidence."""
    fits: tuple[AnchorFit, ...]
    """Per candidate, in file order."""


@dataclass(frozen=True)
class SpanPlan:
    """One labelled span that some candidate cuts, or whose anchor some candidate parts."""

    query: str
    """Query id."""
    span: int
    """1-based position in the query's evidence."""
    doc: str
    """Its document."""
    start: int
    """Its start."""
    end: int
    """Its end."""
    cuts: tuple[SpanCut, ...]
    """The candidates that cut it (no single chunk holds it)."""
    anchor: Anchor | None
    """The question's own words apart from it, when some candidate parts the two."""


@dataclass(frozen=True)
class CandidatePlan:
    """One candidate before any embedding."""

    name: str
    """The candidate's name."""
    splitter: str
    """Its splitter, size and overlap in a few words (`tokens 128/32`)."""
    figures: ChunkFigures
    """Its chunks in numbers."""
    cost: EmbeddingCost | None
    """What indexing it would embed; None for a retriever that embeds nothing."""
    ceilings: tuple[Ceiling, ...]
    """At k, at the context budget (the verdict's fill rule) and over the whole index,
    under both rules."""
    cut_spans: int
    """Labelled spans no single unit it sends holds."""
    sent_tokens_mean: float | None = None
    """Mean tokens sent for one retrieved chunk: its own, or its window's or parent's (§18)."""

    def ceiling(self, rule: str, chunks: int | None) -> Ceiling | None:
        """At `chunks` chunks (None: the oracle)."""
        found = (c for c in self.ceilings if c.budget is None)
        return next((c for c in found if c.rule == rule and c.chunks == chunks), None)

    def at_budget(self, rule: str) -> Ceiling | None:
        """At the plan's context budget."""
        return next((c for c in self.ceilings if c.rule == rule and c.budget is not None), None)


@dataclass(frozen=True)
class Plan:
    """What `spanlab plan` prints."""

    k: int
    """Chunks a query takes (the settings')."""
    match: str
    """The declared match rule."""
    coverage_threshold: float
    """Share of a span a chunk must cover to match it."""
    budget: int
    """Context budget in tokens: declared, or k × the baseline's mean chunk tokens."""
    budget_declared: bool
    """Whether the candidates file declared it."""
    queries: int | None
    """Answerable labelled queries; None with no labels (chunk statistics alone)."""
    candidates: tuple[CandidatePlan, ...]
    """In file order, the baseline among them."""
    spans: tuple[SpanPlan, ...]
    """Spans some candidate cuts or parts from its anchor, by query then position."""
    baseline: str
    """The baseline's name."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for cand, out in zip(self.candidates, data["candidates"], strict=True):
            out["figures"]["realized_overlap"] = cand.figures.realized_overlap
            if cand.cost is not None:
                out["cost"].update(new=cand.cost.new, seconds=cand.cost.seconds)
        return data

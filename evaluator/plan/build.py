"""A plan from chunk tables and labels: no embedding, no index, nothing written (§17).

The pipeline cuts and verifies the candidates exactly as a run does and hands the tables
here; this module only counts tokens, measures ceilings with the run's own match rules and
walks each labelled span against each candidate's boundaries.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evaluator.candidates import Candidate, CandidatesFile
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.tokenizers import count_many, load_tokenizer
from evaluator.chunking.units import Units, units_for
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.settings import MetricSettings
from evaluator.plan.anchor import Side, span_anchor
from evaluator.plan.ceiling import ceilings
from evaluator.plan.figures import budget_chunks, chunk_figures, default_budget
from evaluator.plan.holds import boundaries, hold, holds
from evaluator.plan.model import (
    Anchor,
    CandidatePlan,
    Ceiling,
    ChunkFigures,
    EmbeddingCost,
    Plan,
    SpanCut,
    SpanPlan,
)
from labeler.core.values import Query, Span


@dataclass
class _Cutting:
    """The candidates' indexes over the evidence documents, and units measured once."""

    cfile: CandidatesFile
    """The candidates."""
    texts: Mapping[str, str]
    """Document id -> canonical text."""
    indexes: dict[str, ChunkIndex]
    """Candidate name -> its chunks in the evidence documents."""
    _units: dict[tuple[str, str, str | None], Units] = field(default_factory=dict)

    def units(self, doc: str, cand: Candidate) -> Units:
        unit = cand.spec.unit or "chars"  # a chunk file has no unit: lengths in characters
        key = (doc, unit, cand.spec.tokenizer)
        if key not in self._units:
            self._units[key] = units_for(unit, self.texts[doc], cand.spec.tokenizer)
        return self._units[key]

    def cut(self, cand: Candidate, span: Span, threshold: float) -> SpanCut | None:
        """How `cand` cuts the span, or None when a single chunk holds it."""
        text = self.texts[span.doc]
        touching = self.indexes[cand.name].touching(span.doc, span.start, span.end)
        if any(holds(span.start, span.end, c.start, c.end, threshold) for c in touching):
            return None
        units = self.units(span.doc, cand)
        advice = hold(cand.spec, units, len(text), span.start, span.end, threshold)
        return SpanCut(cand.name, boundaries(touching, span.start, span.end, text), advice)

    def side(self, cand: Candidate, doc: str) -> Side:
        """The candidate as the anchor's fit sees it in `doc`."""
        index = self.indexes[cand.name]
        return Side(cand.name, cand.spec, functools.partial(index.touching, doc),
                    functools.partial(self.units, doc, cand))  # fmt: skip


def build_plan(
    cfile: CandidatesFile,
    texts: Mapping[str, str],
    tables: Mapping[str, ChunkTable],
    queries: Sequence[Query] | None,
    costs: Mapping[str, EmbeddingCost | None],
    width: int | None = None,
) -> Plan:
    """Every candidate's figures and ceilings, and every span some candidate cuts; with
    `queries` None (no labels) the figures alone."""
    settings = cfile.settings
    tokenizer = load_tokenizer(settings.tokenizer)
    count = functools.partial(count_many, tokenizer)
    figures = {c.name: chunk_figures(tables[c.name], texts, count, width) for c in cfile.candidates}
    declared = getattr(settings, "budget", None)  # `[settings] budget`, where the file has it
    budget = declared or default_budget(settings.k, figures[settings.baseline].tokens_mean)
    answerable = [q for q in queries or () if q.answerable]
    docs = {s.doc for q in answerable for s in q.evidence}
    cutting = _Cutting(cfile, texts, {c.name: ChunkIndex.build(tables[c.name].of_docs(docs))
                                      for c in cfile.candidates})  # fmt: skip
    spans = span_plans(cutting, answerable, settings.coverage_threshold)
    counter = TokenCounter(tokenizer.count, texts)
    params = MetricSettings.of(settings)
    plans = tuple(
        candidate_plan(c, figures[c.name], costs.get(c.name), budget, spans,
                       ceilings(answerable, cutting.indexes[c.name], params, counter,
                                (settings.k, budget_chunks(budget, figures[c.name].tokens_mean),
                                 None)) if queries is not None else ())
        for c in cfile.candidates
    )  # fmt: skip
    return Plan(settings.k, settings.match, settings.coverage_threshold, budget,
                declared is not None, None if queries is None else len(answerable), plans,
                spans, settings.baseline)  # fmt: skip


def candidate_plan(
    cand: Candidate,
    figures: ChunkFigures,
    cost: EmbeddingCost | None,
    budget: int,
    spans: Sequence[SpanPlan],
    found: tuple[Ceiling, ...],
) -> CandidatePlan:
    spec = cand.spec
    said = f"{spec.splitter} {spec.size}/{spec.overlap}" if spec.size else spec.splitter
    cut = sum(1 for s in spans for c in s.cuts if c.candidate == cand.name)
    return CandidatePlan(cand.name, said, figures, cost, budget_chunks(budget, figures.tokens_mean),
                         found, cut)  # fmt: skip


def span_plans(
    cutting: _Cutting, queries: Sequence[Query], threshold: float
) -> tuple[SpanPlan, ...]:
    """Each span some candidate cuts, or whose anchor some candidate parts from it."""
    out: list[SpanPlan] = []
    for q in queries:
        for n, s in enumerate(q.evidence, 1):
            cuts = tuple(c for cand in cutting.cfile.candidates
                         if (c := cutting.cut(cand, s, threshold)) is not None)  # fmt: skip
            found = anchor_of(cutting, q.text, s)
            if cuts or found is not None:
                out.append(SpanPlan(q.id, n, s.doc, s.start, s.end, cuts, found))
    return tuple(out)


def anchor_of(cutting: _Cutting, question: str, span: Span) -> Anchor | None:
    """The question's anchor beside the span, when some candidate cannot hold the two."""
    sides = [cutting.side(c, span.doc) for c in cutting.cfile.candidates]
    return span_anchor(question, cutting.texts[span.doc], span.start, span.end, sides)

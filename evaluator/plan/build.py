"""A plan from chunk tables and labels: no embedding, no index, nothing written (§17).

The pipeline cuts and verifies the candidates exactly as a run does and hands the tables
here, with each context candidate's units (§18); this module only counts tokens, measures
ceilings with the run's own match rules and walks each labelled span against what each
candidate sends: its chunks, or their windows or parents.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from evaluator.candidates import Candidate, CandidatesFile
from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.spec import SplitterSpec
from evaluator.chunking.tokenizers import load_tokenizer
from evaluator.chunking.units import Units, units_for
from evaluator.metrics.context_budget import default_budget
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.sent import Sending
from evaluator.metrics.settings import MetricSettings
from evaluator.plan.anchor import Side, span_anchor
from evaluator.plan.ceiling import Sent, ceilings
from evaluator.plan.counting import TextTokens
from evaluator.plan.figures import chunk_figures
from evaluator.plan.holds import boundaries, hold, holds, window_hold
from evaluator.plan.model import (
    Anchor,
    CandidatePlan,
    Ceiling,
    ChunkFigures,
    EmbeddingCost,
    Hold,
    Plan,
    SpanCut,
    SpanPlan,
)
from labeler.core.progress import TaskFactory, each, no_task, stepped
from labeler.core.values import Query, Span


@dataclass
class _Cutting:
    """Per candidate what it sends over the evidence documents (its chunks, or its context
    units), and units measured once."""

    cfile: CandidatesFile
    """The candidates."""
    texts: Mapping[str, str]
    """Document id -> canonical text."""
    indexes: dict[str, ChunkIndex]
    """Candidate name -> what it sends in the evidence documents."""
    tables: Mapping[str, ChunkTable]
    """Candidate name -> its chunks (the retrieval units)."""
    _units: dict[tuple[str, str, str | None], Units] = field(default_factory=dict)

    def units(self, doc: str, spec: SplitterSpec) -> Units:
        unit = spec.unit or "chars"  # a chunk file has no unit: lengths in characters
        key = (doc, unit, spec.tokenizer)
        if key not in self._units:
            self._units[key] = units_for(unit, self.texts[doc], spec.tokenizer)
        return self._units[key]

    def advice(self, cand: Candidate, doc: str, start: int, end: int, threshold: float) -> Hold:
        """What would hold [start, end) in one unit the candidate sends."""
        spec, context = cand.spec, cand.spec.context
        if context is not None and context.parent is not None:
            found = hold(context.parent, self.units(doc, context.parent),
                         len(self.texts[doc]), start, end, threshold)  # fmt: skip
            return replace(found, words=f"parent: {found.words}")
        if context is not None:
            table = self.tables[cand.name]
            r = table.doc_range(doc)
            pairs = list(zip(table.starts[r.start : r.stop].tolist(),
                             table.ends[r.start : r.stop].tolist(), strict=True))  # fmt: skip
            return window_hold(pairs, context.window, start, end, threshold)
        return hold(spec, self.units(doc, spec), len(self.texts[doc]), start, end, threshold)

    def cut(self, cand: Candidate, span: Span, threshold: float) -> SpanCut | None:
        """How `cand` cuts the span, or None when a single unit it sends holds it."""
        touching = self.indexes[cand.name].touching(span.doc, span.start, span.end)
        if any(holds(span.start, span.end, c.start, c.end, threshold) for c in touching):
            return None
        advice = self.advice(cand, span.doc, span.start, span.end, threshold)
        text = self.texts[span.doc]
        return SpanCut(cand.name, boundaries(touching, span.start, span.end, text), advice)

    def side(self, cand: Candidate, doc: str) -> Side:
        """The candidate as the anchor's fit sees it in `doc`."""
        index = self.indexes[cand.name]
        return Side(cand.name, cand.spec, functools.partial(index.touching, doc),
                    functools.partial(self.units, doc, cand.spec),
                    functools.partial(self.advice, cand, doc))  # fmt: skip


def build_plan(
    cfile: CandidatesFile,
    texts: Mapping[str, str],
    tables: Mapping[str, ChunkTable],
    queries: Sequence[Query] | None,
    costs: Mapping[str, EmbeddingCost | None],
    width: int | None = None,
    sent: Mapping[str, Sending | None] | None = None,
    tokens: Mapping[str, npt.NDArray[np.int64]] | None = None,
    task: TaskFactory = no_task,
) -> Plan:
    """Every candidate's figures and ceilings, and every span some candidate cuts; with
    `queries` None (no labels) the figures alone. `sent`: a context candidate's units
    (§18), on which its ceiling, cuts and budget share are taken. `tokens`: each table's
    chunk counts, when counted already (else counted here, document by document). `task`:
    a bar over the spans planned (200,000 spans: minutes)."""
    settings, sent = cfile.settings, sent or {}
    tokenizer = load_tokenizer(settings.tokenizer)
    counts = TextTokens(tokenizer, texts)
    if tokens is None:
        documents = len({d for t in tables.values() for d in t.docs})
        with stepped(task, "counting tokens", documents) as advance:
            tokens = counts.of_tables(tables, advance)
    figures = {c.name: chunk_figures(tables[c.name], tokens[c.name], width)
               for c in cfile.candidates}  # fmt: skip
    declared = getattr(settings, "budget", None)  # `[settings] budget`, where the file has it
    budget = declared or default_budget(settings.k, figures[settings.baseline].tokens_mean)
    answerable = [q for q in queries or () if q.answerable]
    docs = {s.doc for q in answerable for s in q.evidence}
    sendable = {c.name: sendable_units(tables[c.name], sent.get(c.name), docs)
                for c in cfile.candidates}  # fmt: skip
    cutting = _Cutting(cfile, texts, {n: ChunkIndex.build(u) for n, u in sendable.items()},
                       tables)  # fmt: skip
    spans = span_plans(cutting, answerable, settings.coverage_threshold, task)
    counter = TokenCounter(tokenizer.count, texts)
    for c in cfile.candidates:  # the evidence documents' chunks, counted already
        if sent.get(c.name) is None:
            counter.remember(_known(tables[c.name], tokens[c.name], sendable[c.name], docs))
    plans = candidate_plans(cutting, counts, counter, figures, costs, budget, spans,
                            None if queries is None else answerable, sent)  # fmt: skip
    return Plan(settings.k, settings.match, settings.coverage_threshold, budget,
                declared is not None, None if queries is None else len(answerable),
                plans, spans, settings.baseline)  # fmt: skip


def candidate_plans(
    cutting: _Cutting,
    counts: TextTokens,
    counter: TokenCounter,
    figures: Mapping[str, ChunkFigures],
    costs: Mapping[str, EmbeddingCost | None],
    budget: int,
    spans: Sequence[SpanPlan],
    answerable: Sequence[Query] | None,
    sent: Mapping[str, Sending | None],
) -> tuple[CandidatePlan, ...]:
    """Each candidate's plan; its ceilings (none without labels) on what it sends, worked
    out once for candidates that send alike. The ceiling is the chunking's: a treatment
    reorders (MMR, rerank) or caps (`max_per_source`, not modelled: it can only lower it)."""
    settings, tables = cutting.cfile.settings, cutting.tables
    params = MetricSettings.of(settings)
    docs = {s.doc for q in answerable or () for s in q.evidence}
    found: dict[str, tuple[Ceiling, ...]] = {}
    plans = []
    for c in cutting.cfile.candidates:
        mean = sent_mean(tables[c.name], sent.get(c.name), counts, figures[c.name])
        key = c.spec.fingerprint()
        if answerable is not None and key not in found:
            via = _sent(tables[c.name], sent.get(c.name), docs)
            found[key] = ceilings(answerable, cutting.indexes[c.name], params, counter,
                                  (settings.k, None), via, budget)  # fmt: skip
        plans.append(candidate_plan(c, figures[c.name], costs.get(c.name), spans,
                                    found.get(key, ()), mean))  # fmt: skip
    return tuple(plans)


def _known(
    table: ChunkTable, tokens: npt.NDArray[np.int64], chunks: Sequence[Chunk], docs: set[str]
) -> dict[str, int]:
    """Chunk id -> tokens, read from the table's counts, for `chunks`: the table's chunks in
    `docs` (`of_docs`'s order). The ceilings counted them again: a third of a 1 MB plan."""
    rows = [i for doc in sorted(docs) for i in table.doc_range(doc)]
    return {c.id: int(tokens[i]) for c, i in zip(chunks, rows, strict=True)}


def sendable_units(table: ChunkTable, sending: Sending | None, docs: set[str]) -> list[Chunk]:
    """What can be sent in these documents: the chunks, or their context units."""
    chunks = table.of_docs(docs)
    if sending is None:
        return chunks
    return list({u.id: u for u in (sending.unit(c) for c in chunks)}.values())


def _sent(table: ChunkTable, sending: Sending | None, docs: set[str]) -> Sent | None:
    if sending is None:
        return None
    back: dict[str, Chunk] = {}
    for c in table.of_docs(docs):
        back.setdefault(sending.unit(c).id, c)
    return Sent(sending, back)


def sent_mean(
    table: ChunkTable,
    sending: Sending | None,
    counts: TextTokens,
    figures: ChunkFigures,
) -> float | None:
    """Mean tokens sent for one retrieved chunk: the chunk's, or its context unit's."""
    if sending is None or not len(table):
        return figures.tokens_mean
    return float(counts.of_chunks([sending.unit(c) for c in table]).mean())


def candidate_plan(
    cand: Candidate,
    figures: ChunkFigures,
    cost: EmbeddingCost | None,
    spans: Sequence[SpanPlan],
    found: tuple[Ceiling, ...],
    sent_tokens: float | None,
) -> CandidatePlan:
    cut = sum(1 for s in spans for c in s.cuts if c.candidate == cand.name)
    return CandidatePlan(cand.name, described(cand), figures, cost, found, cut, sent_tokens)


def described(cand: Candidate) -> str:
    """`tokens 128/32`, with what is sent and the treatment: `tokens 128/32, window 1`."""
    spec = cand.spec
    said = f"{spec.splitter} {spec.size}/{spec.overlap}" if spec.size else spec.splitter
    if spec.context is not None and spec.context.parent is not None:
        parent = spec.context.parent
        said += f", parent {parent.splitter} {parent.size}/{parent.overlap}"
    elif spec.context is not None:
        said += f", window {spec.context.window}"
    treatment = cand.treatment.record()
    return said + "".join(f", {k} {v}" if isinstance(v, str | int) else f", {k}"
                          for k, v in treatment.items())  # fmt: skip


def span_plans(
    cutting: _Cutting, queries: Sequence[Query], threshold: float, task: TaskFactory = no_task
) -> tuple[SpanPlan, ...]:
    """Each span some candidate cuts, or whose anchor some candidate parts from it, by query
    then position (walked document by document: a document's words are listed once)."""
    spans = [(i, q, n, s) for i, q in enumerate(queries) for n, s in enumerate(q.evidence, 1)]
    out: list[tuple[int, int, SpanPlan]] = []
    for i, q, n, s in each(task, "planning the spans", sorted(spans, key=lambda w: w[3].doc)):
        cuts = tuple(c for cand in cutting.cfile.candidates
                     if (c := cutting.cut(cand, s, threshold)) is not None)  # fmt: skip
        found = anchor_of(cutting, q.text, s)
        if cuts or found is not None:
            out.append((i, n, SpanPlan(q.id, n, s.doc, s.start, s.end, cuts, found)))
    return tuple(plan for _, _, plan in sorted(out, key=lambda w: w[:2]))


def anchor_of(cutting: _Cutting, question: str, span: Span) -> Anchor | None:
    """The question's anchor beside the span, when some candidate cannot hold the two."""
    sides = [cutting.side(c, span.doc) for c in cutting.cfile.candidates]
    return span_anchor(question, cutting.texts[span.doc], span.start, span.end, sides)

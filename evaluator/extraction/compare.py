"""Extractors through chunking and retrieval (§22): the baseline candidate over each text.

Each alternative's corpus is cut by the baseline candidate's splitter and searched by its
retriever, exactly as the project's corpus is; its queries carry their spans where the
alternative's text holds them. A span lost there stays in its query as evidence no chunk
can hold (`unreachable`), so the query's recall counts it missed. Then the comparison
machinery of chunkers (§7) names the queries gained and lost against the project's
extraction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from evaluator.candidates import CandidatesFile
from evaluator.extraction.config import Alternative, Extraction
from evaluator.extraction.evidence import Found, find
from evaluator.extraction.variant import Variant, variant
from evaluator.metrics.compare import Comparison, compare
from evaluator.pipeline import progress
from evaluator.pipeline import run as pipeline
from evaluator.pipeline.cutting import cut
from evaluator.pipeline.options import RunOptions
from evaluator.pipeline.result import CandidateRun
from evaluator.pipeline.treated import uses_vectors
from evaluator.retrieval.base import QueryInput
from evaluator.runs.extraction_record import AlternativeRecord, ExtractionRecord, SpanRecord
from labeler.core.corpus.extract.read import is_source
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query, Span


@dataclass(frozen=True)
class SpanFate:
    """One span of one query, in one alternative's text."""

    query: str
    """Query id."""
    index: int
    """The span's place among the query's evidence (0-based)."""
    doc: str
    """Its document."""
    start: int
    """Its start in the project's text."""
    end: int
    """Its end in the project's text."""
    found: Found
    """Its fate, confidence and place in the alternative's text."""


@dataclass(frozen=True)
class Compared:
    """One alternative against the project's extraction."""

    variant: Variant
    """Its corpus and what it did with each source."""
    spans: tuple[SpanFate, ...]
    """Every span in an extracted document, in query order."""
    comparison: Comparison | None
    """Through the baseline candidate: gained and lost queries (None: no query measured)."""


def unreachable(span: Span, text: str) -> Span:
    """The span as evidence no chunk can hold: its quote past the end of the document's
    text, where no chunk reaches (chunks lie within the text, §5)."""
    start = len(text) + 1
    return Span(span.doc, start, start + len(span.quote), span.quote, id=span.id,
                group=span.group)  # fmt: skip


def fates(queries: Sequence[Query], project: Corpus, other: Variant,
          threshold: float) -> tuple[SpanFate, ...]:  # fmt: skip
    """Every span of an extracted document, found in the alternative's text."""
    out: list[SpanFate] = []
    for q in queries:
        for i, s in enumerate(q.evidence):
            if not is_source(s.doc) or not other.alternative.chosen.reads(s.doc):
                continue
            new = other.corpus.text(s.doc) if s.doc in other.corpus else None
            found = find(s, project.text(s.doc), new, threshold)
            out.append(SpanFate(q.id, i, s.doc, s.start, s.end, found))
    return tuple(out)


def moved_queries(queries: Sequence[Query], spans: Sequence[SpanFate],
                  other: Corpus) -> list[Query]:  # fmt: skip
    """The queries with their spans where the alternative's text holds them."""
    by = {(f.query, f.index): f for f in spans}
    out = []
    for q in queries:
        evidence = []
        for i, s in enumerate(q.evidence):
            fate = by.get((q.id, i))
            if fate is None:
                evidence.append(s)
            elif fate.found.place is None:
                evidence.append(unreachable(s, other.text(s.doc) if s.doc in other else ""))
            else:
                start, end = fate.found.place
                evidence.append(replace(s, start=start, end=end, quote=other.text(s.doc)[start:end],
                                        prefix="", suffix=""))  # fmt: skip
        out.append(replace(q, evidence=tuple(evidence)))
    return out


def _run_on(cfile: CandidatesFile, corpus: Corpus, queries: Sequence[Query],
            options: RunOptions, inputs: list[QueryInput] | None,
            name: str) -> tuple[CandidateRun, list[QueryInput], CandidatesFile]:  # fmt: skip
    """The baseline candidate, named `name`, over `corpus`: cut, indexed, searched. The
    first run (the project's text) declares the budget (§17); the alternatives' runs take
    the settings it declared, so both are measured alike."""
    base = cfile.candidate(cfile.settings.baseline)
    only = replace(cfile, candidates=(base,))
    ctx = pipeline.context(cfile.settings, corpus, options)
    chunks_by, seconds = cut(only, corpus)
    declared, ctx_declared, sizes, _ = pipeline.declared(only, ctx, chunks_by)
    if inputs is None:  # the project's run: its declared settings hold for all
        only, ctx = declared, ctx_declared
        inputs, _ = pipeline.embed_queries(ctx, queries, uses_vectors(ctx.settings, base))
    run, _ = pipeline.run_candidate(ctx, replace(base, name=name), chunks_by[base.name],
                                    seconds[base.name], sizes[base.name].stats, queries,
                                    inputs)  # fmt: skip
    return run, inputs, only


def compare_extractions(
    cfile: CandidatesFile,
    extraction: Extraction,
    corpus: Corpus,
    queries: Sequence[Query],
    options: RunOptions,
) -> tuple[Compared, ...]:
    """Every alternative against the project's extraction: spans, then retrieval, under a
    bar counting the baseline's runs (the demo's two alternatives: 3 s after eval's bar)."""
    kept = [q for q in queries if q.abstain or q.evidence]
    runs = 1 + len(extraction.alternatives)
    with progress.task(f"extractions: {runs} runs", runs, enabled=options.progress) as advance:
        base_run, inputs, cfile = _run_on(cfile, corpus, kept, options, None,
                                          cfile.settings.baseline)  # fmt: skip
        advance(1)
        found = []
        for alt in extraction.alternatives:
            found.append(_one(cfile, alt, corpus, kept, options, (base_run, inputs),
                              extraction.confidence))  # fmt: skip
            advance(1)
    return tuple(found)


def _one(cfile: CandidatesFile, alt: Alternative, corpus: Corpus, queries: Sequence[Query],
         options: RunOptions, base: tuple[CandidateRun, list[QueryInput]],
         threshold: float) -> Compared:  # fmt: skip
    other = variant(corpus, alt)
    spans = fates(queries, corpus, other, threshold)
    if not queries:
        return Compared(other, spans, None)
    moved = moved_queries(queries, spans, other.corpus)
    run, _, _ = _run_on(cfile, other.corpus, moved, options, base[1], alt.name)
    settings = cfile.settings
    return Compared(other, spans, _compared(base[0], run, settings.resamples, settings.seed))


def _compared(base: CandidateRun, run: CandidateRun, resamples: int, seed: int) -> Comparison:
    return compare(base.result, run.result, resamples=resamples, seed=seed)


def record(found: Sequence[Compared], extraction: Extraction, chunked_by: str) -> ExtractionRecord:
    """The comparison as run.json holds it: offsets, fates, scores, gained and lost."""
    return ExtractionRecord(extraction.confidence, chunked_by, tuple(
        AlternativeRecord(
            c.variant.alternative.name, c.variant.alternative.chosen.choice.name,
            dict(c.variant.alternative.chosen.settings), c.variant.extracted, c.variant.failed,
            tuple(SpanRecord(s.query, s.index, s.doc, s.start, s.end, str(s.found.fate),
                             s.found.confidence, s.found.place) for s in c.spans),
            c.comparison,
        ) for c in found
    ))  # fmt: skip


def judged(
    cfile: CandidatesFile, corpus: Corpus, queries: Sequence[Query], options: RunOptions
) -> ExtractionRecord | None:
    """The extraction stage's one call from the pipeline: every `[extraction]` alternative
    compared and recorded; None when the candidates file has no `[extraction]`."""
    if cfile.extraction is None:
        return None
    found = compare_extractions(cfile, cfile.extraction, corpus, queries, options)
    return record(found, cfile.extraction, cfile.settings.baseline)

"""One query under the microscope: evidence, both candidates' cuts and both ranked lists.

Built from run.json plus the corpus, with the same `evaluator.runs.boundary.doc_view` that
`spanlab show` prints, so screen and command mark the same cuts. Each span gets a verdict
per candidate — hit, or run.json's cause: split (every part in the top k, in pieces),
crowded (matched below k), disappeared (a matching chunk exists but ranked beyond depth),
no signal (every top-k chunk scored 0) or cut (no chunk anywhere holds it) — because that
is the question a reviewer asks of every lost query.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from evaluator.chunk import Chunk
from evaluator.chunking.spec import SplitterSpec
from evaluator.chunking.tokenizers import load_tokenizer
from evaluator.metrics import covers
from evaluator.metrics.causes import Cause, span_cause
from evaluator.plan.anchor import anchor_words, listed_sides, span_anchor
from evaluator.plan.holds import cut_words
from evaluator.runs.boundary import DocView, candidate_spec, chunks_for_doc, doc_view
from evaluator.runs.model_queries import EvidenceRef, RankedEntry
from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown
from labeler.core.errors import SpanlabError
from labeler.core.values import Span
from labeler.tui.triage.model import RunView


@dataclass(frozen=True)
class RankedRow:
    rank: int
    """1-based rank in the candidate's list."""
    score: float
    """Retriever score."""
    chunk: Chunk
    """The chunk, as offsets."""
    matches: tuple[int, ...]
    """1-based numbers of the spans it matches (coverage rule, §7)."""
    partial: tuple[tuple[int, float], ...]
    """Spans it overlaps without matching: (span number, share of the span covered)."""
    retrieved: Chunk | None = None
    """The chunk the retriever ranked, when what was sent for it (`chunk`) differs (§18)."""


@dataclass(frozen=True)
class SpanFate:
    """What became of one evidence span in one candidate."""

    verdict: str
    """hit (a top-k chunk holds it, or under `union` the top k together), or the span's
    cause from run.json: split, crowded, disappeared, cut."""
    rank: int | None
    """Rank of the first single chunk that holds it, within depth; None when none does."""
    chunk: Chunk | None
    """The chunk that holds the span (for a cut: the one covering most of it)."""
    share: float
    """Share of the span's characters that chunk covers."""
    coverage: float | None = None
    """Share the top k cover together (evidence_coverage@k), as run.json records it."""


@dataclass(frozen=True)
class Side:
    name: str
    """Candidate name."""
    top: tuple[RankedRow, ...]
    """Ranks 1..k."""
    beyond: tuple[RankedRow, ...]
    """First matches ranked below k (within depth): what crowding looks like."""
    fates: tuple[SpanFate, ...]
    """One per evidence span, in evidence order, under the run's declared match rule."""
    other_fates: tuple[SpanFate, ...] = ()
    """The same under the other rule; empty for a run written before both were kept."""


@dataclass(frozen=True)
class QueryDetail:
    query: str
    """Query id."""
    text: str | None
    """The query text when the run or the caller has it."""
    status: str | None
    """Candidate against baseline: gained, lost, unchanged-hit, unchanged-miss."""
    cause: str | None
    """For a loss: cut, no signal, disappeared, crowded or split."""
    boundary: str
    """The boundary pattern."""
    slices: tuple[str, ...]
    """Its slices."""
    spans: tuple[Span, ...]
    """The evidence, in label order."""
    views: tuple[DocView, ...]
    """One boundary view per evidence document."""
    baseline: Side
    """The baseline's ranking and fates."""
    candidate: Side
    """The candidate's ranking and fates."""
    note: str | None = None
    """Why there is no boundary view (the run was made on another corpus), or None."""
    anchors: tuple[tuple[str, ...], ...] = ()
    """Per span, where the question's own words sit apart from it and whether each side holds
    the two together, in `plan`'s and `show`'s words (none: no anchor, or all hold it)."""
    places: tuple[str, ...] = ()
    """Per span, where it is in its PDF, HTML or DOCX source (`page 2`, §22); "" for text."""


_LOADING = threading.Lock()
"""Tokenizers load one thread at a time: importing transformers from two threads at once
fails half-way, and the screen warms tokenizers in one worker while another cuts."""


def warm_tokenizers(run: RunView) -> None:
    """Load every candidate's tokenizer, so the first query opens without the wait."""
    with _LOADING:
        for name in run.names:
            spec = spec_of(run, name, check=False)  # only warming; opening a query checks
            if spec.unit == "tokens" and spec.tokenizer:
                load_tokenizer(spec.tokenizer)


def spec_of(run: RunView, name: str, *, check: bool = True) -> SplitterSpec:
    return candidate_spec(run.file, name, check=check)


def share(chunk: Chunk, span: Span) -> float:
    """Share of the span's characters inside the chunk (0 for another document)."""
    if chunk.doc != span.doc:
        return 0.0
    inside = min(chunk.end, span.end) - max(chunk.start, span.start)
    return max(0, inside) / (span.end - span.start)


def ranked_row(rank: int, item: RankedEntry, spans: Sequence[Span], threshold: float,
               sent: RankedEntry | None = None) -> RankedRow:  # fmt: skip
    """Matches are taken on what was sent for the chunk (§18), as every measure is."""
    chunk = item.chunk if sent is None else sent.chunk
    matches = tuple(n for n, s in enumerate(spans, 1) if covers(chunk, s, threshold))
    partial = tuple(
        (n, share(chunk, s)) for n, s in enumerate(spans, 1)
        if n not in matches and share(chunk, s) > 0
    )  # fmt: skip
    return RankedRow(rank, item.score, chunk, matches, partial,
                     None if sent is None else item.chunk)  # fmt: skip


def fate(span: Span, rank: int | None, rows: Sequence[RankedRow], index: Sequence[Chunk],
         k: int, threshold: float, cause: Cause | None = None,
         coverage: float | None = None, *, recorded: bool = False,
         match: str = "chunk") -> SpanFate:  # fmt: skip
    """What became of `span` under the rule `match`. `cause` is run.json's (the one every
    view states) when `recorded`; else it is decided here by the same `span_cause`. The
    chunk named is always a single chunk: the first that holds the span, or for a split or a
    cut the one that covers most of it (never the rank where a union completes)."""
    single = next((r for r in rows if covers(r.chunk, span, threshold)), None)
    in_doc = [c for c in index if c.doc == span.doc]
    holders = [c for c in in_doc if covers(c, span, threshold)]
    if not recorded:
        cause = span_cause(None if single is None else single.rank, coverage or 0.0,
                           bool(holders), k=k, threshold=threshold, match=match)  # fmt: skip
    if single is not None and (cause is Cause.CROWDED or (cause is None and single.rank <= k)):
        verdict = "hit" if cause is None else "crowded"
        return SpanFate(verdict, single.rank, single.chunk, share(single.chunk, span), coverage)
    if cause is None or cause is Cause.SPLIT:  # in pieces in the top k (a hit under union)
        pieces = [r.chunk for r in rows[:k]]
        best = max(pieces, key=lambda c: share(c, span), default=None)
        verdict = "split" if cause else "hit"
        return SpanFate(verdict, None, best, 0.0 if best is None else share(best, span), coverage)
    best = max(holders or in_doc, key=lambda c: share(c, span), default=None)
    return SpanFate(cause.value, None, best, 0.0 if best is None else share(best, span), coverage)


def side(run: RunView, qid: str, name: str, spans: Sequence[Span],
         index: Sequence[Chunk]) -> Side:  # fmt: skip
    entry = run.file.queries[qid].candidates[name]
    rows = [ranked_row(i, item, spans, run.threshold, entry.sent_at(i))
            for i, item in enumerate(entry.ranked, 1)]  # fmt: skip
    shares = entry.coverage or (None,) * len(spans)
    match, other_match = run.rules(name)
    rules = [(match, True)] + ([(other_match, False)] if entry.other else [])
    fates = [
        tuple(fate(s, None, rows, index, run.k, run.threshold, entry.cause_under(n, declared),
                   shares[n], recorded=bool(entry.span_causes), match=rule)
              for n, s in enumerate(spans))
        for rule, declared in rules
    ]  # fmt: skip
    beyond = sorted({f.rank for f in fates[0] if f.rank is not None and f.rank > run.k})
    other = fates[1] if len(fates) > 1 else ()
    return Side(name, tuple(rows[: run.k]), tuple(rows[r - 1] for r in beyond), fates[0], other)


def check_corpus(run: RunView, corpus: Corpus, docs: Iterable[str] | None = None) -> None:
    """Refuse a view over text the run did not measure: the whole corpus moved and, when
    the run recorded each document's hash, one of `docs` (a query's documents) changed."""
    manifest = run.file.manifest
    if manifest.corpus_hash == corpus.hash:
        return
    now = corpus.doc_hashes if docs is not None and manifest.doc_hashes else {}
    moved = [d for d in dict.fromkeys(docs or ()) if manifest.doc_hashes.get(d, "?") != now.get(d)]
    if now and not moved:
        return
    made_on, which = manifest.corpus_hash, f" ({shown(moved[0])} changed)" if now else ""
    raise SpanlabError(
        f"run {run.id} was made on corpus {made_on[:19]}…, the corpus folder is "
        f"{corpus.hash[:19]}…{which}: its chunk boundaries cannot be drawn over this text",
        hint="open the corpus the run measured (spanlab.toml or --corpus)",
    )


def query_detail(run: RunView, qid: str, candidate: str, corpus: Corpus,
                 texts: Mapping[str, str] | None = None) -> QueryDetail:  # fmt: skip
    """Everything the query screen draws. On another corpus than the run's, the ranked lists
    and fates only (they need offsets, not text), with `note` saying why."""
    entry = run.file.queries[qid]
    note = corpus_note(run, corpus, [e.doc for e in entry.evidence])
    spans = tuple(offsets_span(e) if note else replace(Span.from_text(
                      corpus.text(e.doc), e.doc, e.start, e.end), group=e.group)
                  for e in entry.evidence)  # fmt: skip
    docs = [] if note else list(dict.fromkeys(s.doc for s in spans))
    with _LOADING:
        cut = {n: {d: chunks_for_doc(spec_of(run, n), corpus, d) for d in docs}
               for n in (run.baseline, candidate)}  # fmt: skip
    views = tuple(
        doc_view(d, corpus.text(d), [(s.start, s.end) for s in spans if s.doc == d],
                 cut[run.baseline][d], cut[candidate][d])
        for d in docs
    )  # fmt: skip
    sides = {n: side(run, qid, n, spans, [c for d in docs for c in cut[n][d]])
             for n in (run.baseline, candidate)}  # fmt: skip
    change = entry.candidates[candidate]
    text = entry.text or (texts or {}).get(qid)
    found = () if note else anchors(run, text, spans, corpus, cut)
    places = tuple(corpus.place(s.doc, s.start, s.end) for s in spans)
    return QueryDetail(qid, text, change.status, change.cause, entry.boundary, entry.slices,
                       spans, views, sides[run.baseline], sides[candidate], note,
                       found, places)  # fmt: skip


def anchors(
    run: RunView,
    question: str | None,
    spans: Sequence[Span],
    corpus: Corpus,
    cut: Mapping[str, Mapping[str, Sequence[Chunk]]],
) -> tuple[tuple[str, ...], ...]:
    """Per span, `plan`'s words (§17): what would hold it for a side that cuts it, then where
    the question's words sit apart from it; empty where there is nothing to tell."""
    out: list[tuple[str, ...]] = []
    for s in spans:
        text = corpus.text(s.doc)
        listed = {n: (spec_of(run, n), cut[n][s.doc]) for n in cut}
        words = (cut_words(n, spec, cs, text, s.start, s.end, run.threshold)
                 for n, (spec, cs) in listed.items())  # fmt: skip
        said = [w for w in words if w]
        found = None
        if question:
            found = span_anchor(question, text, s.start, s.end, listed_sides(listed, s.doc, text))
        out.append((*said, *(anchor_words(found) if found else ())))
    return tuple(out)


def offsets_span(ref: EvidenceRef) -> Span:
    """A span by its offsets only, for a corpus the run was not made on: the quote is
    U+FFFD, one per code point, as the text is not here to quote; nothing writes it."""
    return Span(ref.doc, ref.start, ref.end, "\ufffd" * (ref.end - ref.start), group=ref.group)


def corpus_note(run: RunView, corpus: Corpus, docs: Iterable[str] | None = None) -> str | None:
    """Why the boundary view cannot be drawn (another corpus), or None."""
    try:
        check_corpus(run, corpus, docs)
    except SpanlabError as exc:
        return str(exc)
    return None

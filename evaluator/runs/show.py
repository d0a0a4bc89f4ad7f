"""`spanlab show` as text: a query's evidence with both candidates' cuts and top-k lists.

The text boundary view, for a terminal without the TUI: it reads the run folder's RunFile,
re-cuts the evidence documents the way the run did (`boundary.candidate_spec`) and draws
them with `boundary_text` — text intact, cuts on ruler lines, each span's fate in words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.text import Text

from evaluator.chunk import Chunk
from evaluator.metrics.causes import Cause
from evaluator.runs import index as runs_index
from evaluator.runs.boundary import (
    BASELINE_MARK,
    BOTH_MARK,
    CANDIDATE_MARK,
    candidate_spec,
    chunks_for_doc,
    doc_view,
)
from evaluator.runs.boundary_text import (
    EVIDENCE_RULE,
    STYLES,
    fate_words,
    holder,
    inner_cuts,
    ranked_lines,
    window,
)
from evaluator.runs.model import RunFile, read_run
from evaluator.runs.model_queries import QueryRecord, QueryResult
from labeler.core.corpus import Corpus
from labeler.core.display import masked, shown
from labeler.core.errors import SpanlabError


def load_run(runs_dir: Path, run: str) -> RunFile:
    """The run given by folder, id, unique id prefix or `latest`."""
    folder = Path(run) if Path(run).is_dir() else runs_index.find_run(runs_dir, run).folder
    return read_run(folder)


def ranks_text(ranks: Sequence[int | None] | None, k: int, result: QueryResult) -> str:
    """First-match ranks in words, each span's cause as run.json states it."""
    if ranks is None:
        return "abstention query: no evidence"
    words = []
    for n, r in enumerate(ranks):
        cause = result.span_cause(n)
        if cause is None and r is not None and r <= k:
            words.append(f"{r}")
        elif cause is Cause.SPLIT or (cause is None and r is None):
            words.append("none alone (split: the top k hold it in pieces)" if cause else "none")
        elif r is not None:
            words.append(f"{r} ({cause or 'crowded'}: below k)")
        else:
            words.append(f"none within depth ({cause or 'disappeared'})")
    return ", ".join(words)


def _pair(run: RunFile, query: str, candidate: str | None, corpus: Corpus) -> tuple[str, str]:
    """The baseline and the candidate to compare, once the run fits the query and corpus."""
    if query not in run.queries:
        raise SpanlabError(f"no query {query!r} in run {run.id}", key="query")
    if run.manifest.corpus_hash != corpus.hash:
        raise SpanlabError(
            f"run {run.id} was made on corpus {run.manifest.corpus_hash}, "
            f"the corpus folder is {corpus.hash}"
        )
    base = run.baseline.name
    other = candidate or next(iter(run.others), base)
    if other not in run.names:
        raise SpanlabError(f"no candidate {other!r} in run {run.id}", key="candidate")
    return base, other


def _head(entry: QueryRecord, other: str, base: str, text: str | None) -> list[str]:
    kind = "abstention query" if entry.abstain else entry.boundary
    lines = [f"{entry.id}  {kind}  {', '.join(entry.slices)}"]
    if text is not None:
        lines.append(f"“{text}”")
    change = entry.candidates[other]
    if change.status:
        cause = f" ({change.cause}: {change.cause.words})" if change.cause else ""
        lines.append(f"{other} vs {base}: {change.status}{cause}")
    return [shown(line, lines=False) for line in lines]


def _terminal_safe(line: Text) -> Text:
    """The line with every control or bidi character drawn as one placeholder: the same
    length, so the rulers under the document text keep their columns (§13)."""
    line.plain = masked(line.plain)
    return line


def _span_line(n: int, entry: QueryRecord, cut: Mapping[str, Sequence[Chunk]], k: int) -> str:
    """`e1 doc 10..20 (10 ch): base holds it whole in 0..40; cand cuts it at 15 — split …`."""
    ev = entry.evidence[n]
    fates = "; ".join(fate_words(name, chunks, ev) for name, chunks in cut.items())
    line = f"evidence e{n + 1}: {ev.doc} {ev.start}..{ev.end} ({ev.end - ev.start} ch): {fates}"
    for name in cut:
        result = entry.candidates[name]
        cause = result.span_cause(n)
        if cause is not None:
            cover = result.coverage
            share = "" if cover is None else f", top {k} cover {cover[n]:.0%}"
            line += f" — in {name}: {cause} ({cause.words}{share})"
    return line


def show_view(
    run: RunFile,
    query: str,
    candidate: str | None,
    corpus: Corpus,
    texts: Mapping[str, str] | None = None,
    *,
    width: int | None = None,
) -> list[Text]:
    """The boundary view's lines; wrapped to `width` at word boundaries (None: not wrapped)."""
    base, other = _pair(run, query, candidate, corpus)
    k = run.manifest.settings.k
    entry = run.queries[query]
    specs = {n: candidate_spec(run, n) for n in (base, other)}
    lines = [Text(line) for line in _head(entry, other, base, (texts or {}).get(query))]
    docs = list(dict.fromkeys(ev.doc for ev in entry.evidence))
    cut = {n: [c for d in docs for c in chunks_for_doc(specs[n], corpus, d)] for n in specs}
    lines += [Text(_span_line(n, entry, cut, k)) for n in range(len(entry.evidence))]
    for doc in docs:
        lines += _doc_lines(entry, doc, corpus.text(doc), cut, width)
    for name in (base, other):
        result = entry.candidates[name]
        ranks = ranks_text(result.first_match_ranks, k, result)
        lines += [Text(""), Text(f"top {k} — {name}  (first match: {ranks})", "bold")]
        lines += [Text(row) for row in ranked_lines(result, k, entry.evidence)]
    return [_terminal_safe(line) for line in lines]


def _doc_lines(entry: QueryRecord, doc: str, text: str, cut: Mapping[str, Sequence[Chunk]],
               width: int | None) -> list[Text]:  # fmt: skip
    base, other = cut
    spans = [(ev.start, ev.end) for ev in entry.evidence if ev.doc == doc]
    view = doc_view(doc, text, spans, cut[base], cut[other])
    broke = {x for ev in entry.evidence if ev.doc == doc for chunks in cut.values()
             if holder(chunks, ev) is None for x in inner_cuts(chunks, ev)}  # fmt: skip
    legend = Text.assemble(
        f"── {doc} {view.start}..{view.end}   ", (BASELINE_MARK, STYLES[BASELINE_MARK]),
        f" {base}  ", (CANDIDATE_MARK, STYLES[CANDIDATE_MARK]), f" {other}  ",
        (BOTH_MARK, STYLES[BOTH_MARK]), f" both  {EVIDENCE_RULE} evidence",
    )  # fmt: skip
    # One column spare: a ruler marks a cut at a line's end one column past its text.
    wrap = None if width is None else max(20, width - 1)
    return [Text(""), legend, *window(view, text, spans, broke, wrap)]


def show_text(
    run: RunFile,
    query: str,
    candidate: str | None,
    corpus: Corpus,
    texts: Mapping[str, str] | None = None,
    *,
    width: int | None = None,
) -> str:
    """The boundary view as plain text (what `spanlab show` prints when piped)."""
    view = show_view(run, query, candidate, corpus, texts, width=width)
    return "\n".join(line.plain.rstrip() for line in view)

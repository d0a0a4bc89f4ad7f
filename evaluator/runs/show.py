"""`spanlab show` as text: a query's evidence with both candidates' cuts and top-k lists.

The plain-text boundary view, for a terminal without the TUI; it reads the run folder's
RunFile and re-cuts the evidence documents the way the run did (`boundary.candidate_spec`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from evaluator.metrics.causes import Cause
from evaluator.runs import index as runs_index
from evaluator.runs.boundary import (
    candidate_spec,
    chunks_for_doc,
    doc_view,
    ranked_table,
    render_plain,
)
from evaluator.runs.model import RunFile, read_run
from evaluator.runs.model_queries import QueryRecord, QueryResult
from labeler.core.corpus import Corpus
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
    for i, ev in enumerate(entry.evidence, 1):
        lines.append(f"evidence e{i}: {ev.doc} {ev.start}..{ev.end}")
    change = entry.candidates[other]
    if change.status:
        cause = f" ({change.cause}: {change.cause.words})" if change.cause else ""
        lines.append(f"{other} vs {base}: {change.status}{cause}")
    return lines


def show_text(
    run: RunFile,
    query: str,
    candidate: str | None,
    corpus: Corpus,
    texts: Mapping[str, str] | None = None,
) -> str:
    base, other = _pair(run, query, candidate, corpus)
    k = run.manifest.settings.k
    entry = run.queries[query]
    specs = {n: candidate_spec(run, n) for n in (base, other)}
    lines = _head(entry, other, base, (texts or {}).get(query))
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for ev in entry.evidence:
        by_doc.setdefault(ev.doc, []).append((ev.start, ev.end))
    for doc, spans in by_doc.items():
        text = corpus.text(doc)
        view = doc_view(doc, text, spans, chunks_for_doc(specs[base], corpus, doc),
                        chunks_for_doc(specs[other], corpus, doc))  # fmt: skip
        legend = f"⟦evidence⟧  ┃b {base}  ┆c {other}  ‖ both"
        lines += ["", f"── {doc} {view.start}..{view.end}   {legend}", render_plain(view, text)]
    for name in (base, other):
        result = entry.candidates[name]
        ranks = ranks_text(result.first_match_ranks, k, result)
        lines += ["", f"top {k} — {name}  (first match: {ranks})"]
        lines += ranked_table(result, k)
    return "\n".join(lines)

"""A run as TREC files, so ranx, ir_measures and pytrec_eval users measure what spanlab
measured (§14, §17, §18): what each candidate SENDS, at true ranks.

Per candidate: `NAME.run` (`qid Q0 unit_id rank score NAME`): per rank to depth, the unit
sent for that rank's chunk (the chunk itself, or its parent or merged window, §18); a unit
already sent at an earlier rank is written `ID@RANK` (never relevant), so a line's position
is its rank. `NAME.retrieved.run` holds the retrieved chunks when they differ (a context
candidate; `retriever = "ranked"` reads it back). `NAME.qrels`: the units that match a span
under §7's rule (the corpus re-cut, so relevant chunks beyond depth count; a context
candidate's units are judged as run.json holds them). `NAME.spans.run` and `spans.qrels`:
each evidence group (§18: alternatives are one item) at its first-match rank as run.json
records it (`trec_spans`), so recall@k and MRR over them are the run's at k; with a budget,
`NAME.budget.run` and `NAME.budget.spans.run` end where the budget's fill rule ends each
query's context (measure them with no cutoff, or any cutoff ≥ the list). Scores are
rank-derived (n − rank + 1) so every tool sees spanlab's exact order. Abstention queries
have no relevant items and are left out. `README.txt` in the folder says all this.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluator.chunk import Chunk
from evaluator.chunking import chunk_corpus
from evaluator.metrics.view import covers
from evaluator.runs.boundary import candidate_spec
from evaluator.runs.model import RunFile, read_run_file
from evaluator.runs.model_queries import QueryResult, RankedEntry
from evaluator.runs.show import load_run
from evaluator.runs.trec_spans import group_ranks, span_lines
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.files import nofollow, sharing
from labeler.core.files.access import refused_write
from labeler.core.names import inside
from labeler.core.values import Span


@dataclass(frozen=True)
class Evidence:
    """One answerable query of the run: its spans, rebuilt against the corpus."""

    qid: str
    """Query id."""
    spans: tuple[Span, ...]
    """Its evidence."""
    items: tuple[int, ...]
    """Per span, the span item it counts as: its own index, or its group's first span's."""


def evidence(run: RunFile, corpus: Corpus) -> list[Evidence]:
    """Answerable queries of the run, in run order; the corpus must be the run's."""
    if run.manifest.corpus_hash != corpus.hash:
        raise SpanlabError(
            f"run {run.id} was made on corpus {run.manifest.corpus_hash}, "
            f"the corpus is {corpus.hash}",
            hint="export with the corpus the run was made on",
        )
    out = []
    for qid, entry in run.queries.items():
        spans = tuple(
            Span.from_text(corpus.text(e.doc), e.doc, e.start, e.end) for e in entry.evidence
        )
        if spans and not entry.abstain:
            out.append(Evidence(qid, spans, span_items([e.group for e in entry.evidence])))
    return out


def span_items(groups: Sequence[int | None]) -> tuple[int, ...]:
    """Per span, its own index, or the index of the first span of its group (§18)."""
    first: dict[int, int] = {}
    return tuple(i if g is None else first.setdefault(g, i) for i, g in enumerate(groups))


def _score(rank: int, depth: int) -> str:
    return str(depth - rank + 1)


def _result(run: RunFile, qid: str, name: str) -> QueryResult:
    return run.queries[qid].candidates[name]


def sent_entries(result: QueryResult) -> list[RankedEntry]:
    """Per rank, what is sent for that rank's chunk: its unit, or the chunk itself."""
    return [result.sent_at(n) or entry for n, entry in enumerate(result.ranked, 1)]


def run_lines(
    run: RunFile,
    name: str,
    queries: Sequence[Evidence],
    *,
    retrieved: bool = False,
    budget: bool = False,
) -> list[str]:
    """Per query, per rank, the unit sent (or with `retrieved`, the chunk retrieved); a unit
    sent again is `ID@RANK`. With `budget`, each list ends at the budget's cut."""
    depth = run.manifest.settings.depth
    lines = []
    for q in queries:
        result = _result(run, q.qid, name)
        entries = list(result.ranked) if retrieved else sent_entries(result)
        if budget:
            entries = entries[: result.budget_cut or 0]
        seen: set[str] = set()
        for rank, entry in enumerate(entries, 1):
            unit = entry.chunk_id if entry.chunk_id not in seen else f"{entry.chunk_id}@{rank}"
            seen.add(entry.chunk_id)
            lines.append(f"{q.qid} Q0 {unit} {rank} {_score(rank, depth)} {name}")
    return lines


def chunk_qrels(
    chunks: Sequence[Chunk],
    queries: Sequence[Evidence],
    threshold: float,
    units: Mapping[str, Sequence[Chunk]] | None = None,
) -> list[str]:
    """Relevant units per query: every chunk of the re-cut index that matches a span, and
    (`units`: query id -> the units a context candidate sent) every sent unit that does."""
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc, []).append(c)
    lines = []
    for q in queries:
        pool = [c for s in q.spans for c in by_doc.get(s.doc, [])]
        pool += (units or {}).get(q.qid, ())
        relevant = {c.id: None for c in pool for s in q.spans if covers(c, s, threshold)}
        # A query no chunk can answer stays in the qrels (judged, nothing relevant), so
        # tools count it as the miss spanlab counts instead of dropping it.
        lines += [f"{q.qid} 0 {cid} 1" for cid in relevant] or [f"{q.qid} 0 {q.qid}#none 0"]
    return lines


def span_run_lines(
    run: RunFile, name: str, queries: Sequence[Evidence], *, budget: bool = False
) -> list[str]:
    """Each group at its first-match rank (`trec_spans`): at k to depth, so recall@k is
    evidence_recall@k; with `budget`, only groups first matched within the budget's cut."""
    settings = run.manifest.settings
    lines = []
    for q in queries:
        result = _result(run, q.qid, name)
        if budget:
            cut = result.budget_cut or 0
            found = group_ranks(result, q.items)
            lines += span_lines(q.qid, name, found, cut, cut)
        else:
            found = group_ranks(result, q.items, settings.k)
            lines += span_lines(q.qid, name, found, settings.k, settings.depth)
    return lines


def span_qrels(queries: Sequence[Evidence]) -> list[str]:
    return [f"{q.qid} 0 {q.qid}#{i} 1" for q in queries for i in dict.fromkeys(q.items)]


def trec_run(runs_dir: Path, run: str) -> RunFile:
    """A run given as its run.json (an `eval --json` copy), a folder, an id or `latest`."""
    given = Path(run)
    if not given.is_file():
        return load_run(runs_dir, run)
    return read_run_file(given)


def _write(path: Path, lines: list[str]) -> Path:
    try:
        sharing.write_text(path, "".join(line if line.endswith("\n") else line + "\n"
                                         for line in lines))  # fmt: skip
    except OSError as exc:
        message, hint = refused_write(path, exc)
        raise SpanlabError(message, file=str(path), hint=hint) from None
    return path


def has_cuts(run: RunFile) -> bool:
    """Whether run.json records each query's budget cut (runs before it did not)."""
    return run.budget is not None and any(
        r.budget_cut is not None for q in run.queries.values() for r in q.candidates.values()
    )


def differs(run: RunFile, name: str) -> bool:
    """Whether candidate `name` sends something other than what it retrieves (§18)."""
    return any(q.candidates[name].sent for q in run.queries.values() if name in q.candidates)


def file_names(run: RunFile, name: str) -> list[tuple[str, str]]:
    """The files written for one candidate: (ending, kind)."""
    ends = [(".run", "sent"), (".qrels", "qrels"), (".spans.run", "spans")]
    if differs(run, name):
        ends.append((".retrieved.run", "retrieved"))
    if has_cuts(run):
        ends += [(".budget.run", "budget"), (".budget.spans.run", "budget-spans")]
    return ends


def readme(run: RunFile) -> str:
    """README.txt: which file holds what, and how ranks are counted."""
    s = run.manifest.settings
    budget = (
        f"budget {run.budget:,} tokens"
        if has_cuts(run)
        else "no budget cut recorded (a run written before budget cuts were kept)"
    )
    return "\n".join(
        [
            f"spanlab trec of run {run.id}: k = {s.k}, depth = {s.depth}, match {s.match}, "
            f"{budget}; the verdict is decided at {run.decide}.",
            "NAME.run: per rank to depth, the unit the candidate SENDS for that rank's chunk (the",
            "  chunk itself, or its parent or merged window); a unit already sent at an earlier",
            "  rank is written ID@RANK and is never relevant, so a line's position is its rank.",
            "  A window that does not merge (merge = false) is written at every rank it is sent",
            "  for, overlapping its neighbours' (the prompt holds the shared text twice);",
            "  auto-merging: the unit at rank r is the one that holds r's chunk when ranks 1..r",
            "  are sent, so a child a later rank's parent replaces keeps its own line (the",
            "  budget cut counts what the top n send: the parent once, not its children).",
            "NAME.retrieved.run: the chunks retrieved, when they differ from what is sent.",
            "NAME.qrels: the units that match a span (the corpus re-cut: relevant chunks beyond",
            "  depth count); hit_rate@k over NAME.run equals hit@k on single-span queries.",
            "NAME.spans.run + spans.qrels: each evidence group (alternatives are one item) at its",
            "  TRUE first-match rank as run.json records it, fillers (QID#fillN) between; recall@k",
            "  over them is the run's at k. Two groups first matched by one unit: the second",
            "  stands at the nearest free position on the same side of k, later if one is free,",
            "  else earlier (its rank column still true); MRR is the run's except when it stands",
            "  earlier: it reads higher (two groups first matched at rank k: RR 1/(k-1), not 1/k).",
            "NAME.budget.run, NAME.budget.spans.run: the same, each query's list ending where the",
            "  budget's fill rule ends its context (the unit that would cross it is left out):",
            "  measure them with no cutoff (or one >= depth) to get the figures at budget.",
            "Scores fall with position (NAME.run's: depth - rank + 1): every tool sees spanlab's",
            "  exact order.",
            "",
        ]
    )


def export_trec(
    run: RunFile, corpus: Corpus, out: Path, leave_out: frozenset[str] = frozenset()
) -> list[Path]:
    """Write every candidate's run and qrels files into `out`, but for the queries in
    `leave_out` (blind, §20); return the paths. Every path is built (and checked to stay
    inside `out`, §13) before anything is written."""
    queries = [q for q in evidence(run, corpus) if q.qid not in leave_out]
    files = {name: {kind: inside(out, f"{name}{end}") for end, kind in file_names(run, name)}
             for name in run.names}  # fmt: skip
    found = nofollow.lstat(out)
    if found is not None and not stat.S_ISDIR(found.st_mode):  # a FIFO, a device, a link
        raise nofollow.refusal(out, found, "writes a folder of files", "name a folder")
    try:
        sharing.make_folder(out)
    except OSError as exc:
        message, hint = refused_write(out, exc)
        raise SpanlabError(message, file=str(out), hint=hint) from None
    written = [_write(out / "README.txt", [readme(run)]),
               _write(out / "spans.qrels", span_qrels(queries))]  # fmt: skip
    for name, paths in files.items():
        chunks = chunk_corpus(candidate_spec(run, name), corpus)
        written += [
            _write(path, _lines(kind, run, name, queries, chunks)) for kind, path in paths.items()
        ]
    return written


def _lines(
    kind: str, run: RunFile, name: str, queries: Sequence[Evidence], chunks: Sequence[Chunk]
) -> list[str]:
    """The lines of one of `file_names`' kinds."""
    if kind == "qrels":
        threshold = run.manifest.settings.coverage_threshold
        return chunk_qrels(chunks, queries, threshold, _sent_units(run, name, queries, chunks))
    if kind in ("spans", "budget-spans"):
        return span_run_lines(run, name, queries, budget=kind == "budget-spans")
    return run_lines(run, name, queries, retrieved=kind == "retrieved", budget=kind == "budget")


def _sent_units(
    run: RunFile, name: str, queries: Sequence[Evidence], chunks: Sequence[Chunk]
) -> dict[str, list[Chunk]] | None:
    """Query id -> the units sent for it (a re-cut chunk of the same id keeps its prefix)."""
    if not differs(run, name):
        return None
    by_id = {c.id: c for c in chunks}
    return {q.qid: [by_id.get(e.chunk_id, e.chunk) for e in sent_entries(_result(run, q.qid, name))]
            for q in queries}  # fmt: skip

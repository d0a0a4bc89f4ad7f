"""A run as TREC files, so ranx, ir_measures and pytrec_eval users can measure it (§14).

Per candidate: `NAME.run` (`qid Q0 chunk_id rank score NAME`, spanlab's ranked list to
depth) and `NAME.qrels` (`qid 0 chunk_id 1` for every chunk of the index that matches a
span of the query under §7's rule; the corpus is re-cut to find them, so relevant chunks
beyond depth count too). On single-span queries hit_rate@k over these equals spanlab's
hit@k. `NAME.spans.run` and `spans.qrels` rank the evidence spans themselves (those matched
within the top k first), so recall@k over them equals evidence_recall@k at the
run's k (see span_run_lines for the one exception); alternatives (§18) are one item, named
by their group's first span, found where any of them is. Scores are rank-derived
(n − rank + 1) so every tool sees spanlab's exact order, ties included. Abstention
queries have no relevant items and are left out.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluator.chunk import Chunk
from evaluator.chunking import chunk_corpus
from evaluator.metrics.view import covers
from evaluator.runs.boundary import candidate_spec
from evaluator.runs.model import RunFile, read_run_file
from evaluator.runs.model_queries import RankedEntry
from evaluator.runs.show import load_run
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


def _ranked(run: RunFile, qid: str, name: str) -> tuple[RankedEntry, ...]:
    return run.queries[qid].candidates[name].ranked


def run_lines(run: RunFile, name: str, queries: Sequence[Evidence]) -> list[str]:
    depth = run.manifest.settings.depth
    lines = []
    for q in queries:
        for rank, entry in enumerate(_ranked(run, q.qid, name), 1):
            lines.append(f"{q.qid} Q0 {entry.chunk_id} {rank} {_score(rank, depth)} {name}")
    return lines


def chunk_qrels(
    chunks: Sequence[Chunk], queries: Sequence[Evidence], threshold: float
) -> list[str]:
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc, []).append(c)
    lines = []
    for q in queries:
        relevant = {c.id: None for s in q.spans for c in by_doc.get(s.doc, [])
                    if covers(c, s, threshold)}  # fmt: skip
        # A query no chunk can answer stays in the qrels (judged, nothing relevant), so
        # tools count it as the miss spanlab counts instead of dropping it.
        lines += [f"{q.qid} 0 {cid} 1" for cid in relevant] or [f"{q.qid} 0 {q.qid}#none 0"]
    return lines


def _first_ranks(ranked: Sequence[RankedEntry], q: Evidence, threshold: float) -> dict[int, int]:
    """Span item -> rank of the first ranked chunk that matches it (any of its group)."""
    first: dict[int, int] = {}
    for rank, entry in enumerate(ranked, 1):
        chunk = Chunk(entry.chunk_id, entry.doc, entry.start, entry.end)
        for item, span in zip(q.items, q.spans, strict=True):
            if item not in first and covers(chunk, span, threshold):
                first[item] = rank
    return first


def _span_items(first: dict[int, int], qid: str, k: int) -> list[str]:
    """Spans matched within k first (so recall@k counts exactly them), fillers to k, then
    the spans found deeper at the rank of their first matching chunk."""
    items = [f"{qid}#{i}" for i, r in sorted(first.items(), key=lambda x: x[1]) if r <= k]
    for i, rank in sorted(((i, r) for i, r in first.items() if r > k), key=lambda x: x[1]):
        items += [f"{qid}#fill{n}" for n in range(len(items) + 1, max(rank, k + 1))]
        items.append(f"{qid}#{i}")
    return items or [f"{qid}#fill1"]


def span_run_lines(
    run: RunFile, name: str, queries: Sequence[Evidence], threshold: float
) -> list[str]:
    """recall@k over these equals evidence_recall@k at the run's k, unless one query has
    more than k spans matched within its top k chunks (a chunk holding several)."""
    k = run.manifest.settings.k
    lines = []
    for q in queries:
        items = _span_items(_first_ranks(_ranked(run, q.qid, name), q, threshold), q.qid, k)
        lines += [f"{q.qid} Q0 {item} {p} {_score(p, len(items))} {name}"
                  for p, item in enumerate(items, 1)]  # fmt: skip
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
        sharing.write_text(path, "".join(line + "\n" for line in lines))
    except OSError as exc:
        message, hint = refused_write(path, exc)
        raise SpanlabError(message, file=str(path), hint=hint) from None
    return path


def export_trec(
    run: RunFile, corpus: Corpus, out: Path, leave_out: frozenset[str] = frozenset()
) -> list[Path]:
    """Write every candidate's run and qrels files into `out`, but for the queries in
    `leave_out` (blind, §20); return the paths. Every path is built (and checked to stay
    inside `out`, §13) before anything is written."""
    queries = [q for q in evidence(run, corpus) if q.qid not in leave_out]
    threshold = run.manifest.settings.coverage_threshold
    files = {name: [inside(out, f"{name}{end}") for end in (".run", ".qrels", ".spans.run")]
             for name in run.names}  # fmt: skip
    found = nofollow.lstat(out)
    if found is not None and not stat.S_ISDIR(found.st_mode):  # a FIFO, a device, a link
        raise nofollow.refusal(out, found, "writes a folder of files", "name a folder")
    try:
        sharing.make_folder(out)
    except OSError as exc:
        message, hint = refused_write(out, exc)
        raise SpanlabError(message, file=str(out), hint=hint) from None
    written = [_write(out / "spans.qrels", span_qrels(queries))]
    for name, (run_path, qrels_path, spans_path) in files.items():
        chunks = chunk_corpus(candidate_spec(run, name), corpus)
        written += [
            _write(run_path, run_lines(run, name, queries)),
            _write(qrels_path, chunk_qrels(chunks, queries, threshold)),
            _write(spans_path, span_run_lines(run, name, queries, threshold)),
        ]
    return written

"""The cut step of a run (§5): every candidate's chunks, checked, and the queries measured.

Kept apart from `run` so that `spanlab plan` cuts exactly as a run does without importing
the retrieval, embedding and Chroma wings it never uses. A plan may share one cut among
candidates that cut alike (a treatment or a context window leaves the chunks as they are).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from evaluator.candidates import Candidate, CandidatesFile
from evaluator.chunk_table import ChunkTable
from evaluator.chunking import chunk_table
from evaluator.pipeline import sanity
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError
from labeler.core.progress import Advance, TaskFactory, no_task, stepped
from labeler.core.values import Query


def usable_queries(queries: Sequence[Query]) -> tuple[list[Query], tuple[str, ...]]:
    """Queries to measure, and the ids left out: no evidence and not marked abstain."""
    skipped = tuple(q.id for q in queries if not q.abstain and not q.evidence)
    return [q for q in queries if q.abstain or q.evidence], skipped


def cut(
    cfile: CandidatesFile, corpus: Corpus, *, share: bool = False, task: TaskFactory = no_task
) -> tuple[dict[str, ChunkTable], dict[str, float]]:
    """Every candidate's chunks, checked, and the seconds each cut took. Tables hold a
    few numbers per chunk, and each document's text is in hand only while it is cut.
    With `share`, a candidate that cuts as an earlier one did gets that table under its
    own fingerprint (its chunk ids are its own), not cut or checked again. `task`: a bar
    counting documents cut (a 6 MB corpus: minutes before plan or eval printed a line)."""
    chunks_by: dict[str, ChunkTable] = {}
    seconds: dict[str, float] = {}
    done: dict[str, ChunkTable] = {}
    cuts = len({cut_key(c) for c in cfile.candidates}) if share else len(cfile.candidates)
    with stepped(task, f"cutting: {cuts} cut(s)", cuts * len(corpus)) as advance:
        for cand in cfile.candidates:
            t = time.perf_counter()
            same = done.get(cut_key(cand)) if share else None
            if same is not None:
                chunks_by[cand.name] = relabelled(same, cand.spec.fingerprint())
            else:
                table = _cut_one(cfile, cand, corpus, advance)
                chunks_by[cand.name] = done[cut_key(cand)] = table
                sanity.check_chunks(cand.name, chunks_by[cand.name], corpus)
            seconds[cand.name] = time.perf_counter() - t
    sanity.check_same_documents(chunks_by)
    return chunks_by, seconds


def _cut_one(
    cfile: CandidatesFile, cand: Candidate, corpus: Corpus, advance: Advance | None = None
) -> ChunkTable:
    try:
        return chunk_table(cand.spec, corpus, advance)
    except ConfigError as exc:  # a library splitter's verification names the chunk
        message = f"candidate {cand.name!r}: {exc.message}"
        raise replace(exc, message=message, file=exc.file or cfile.path) from None


def cut_key(cand: Candidate) -> str:
    """What decides a candidate's chunks: its splitter, and its parents when it has them
    (children are cut within them); a context window and a treatment do not."""
    spec = cand.spec
    if spec.context is not None and spec.context.parent is not None:
        return spec.fingerprint()
    return spec.without_context().fingerprint()


def relabelled(table: ChunkTable, fingerprint: str) -> ChunkTable:
    """The same chunks under another candidate's fingerprint (the columns are shared)."""
    return ChunkTable(table.corpus_hash, fingerprint, table.docs, table.doc_of, table.starts,
                      table.ends, table.prefixes, table.sources)  # fmt: skip

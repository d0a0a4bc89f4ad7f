"""BEIR and TREC qrels, `qrels` (§14): relevance by document, so evidence is document-level.

BEIR: `qrels/*.tsv` with a `query-id corpus-id score` header and `queries.jsonl`
(`{"_id", "text"}`) in the dataset folder above (or beside) it. TREC: `qid 0 docid rel`,
whitespace-separated, no header; the questions still come from a `queries.jsonl`. A
relevant document (score > 0) becomes one span over the whole document; a corpus id names
a document by its id or, failing that, by its unique file stem. Writing gives the BEIR pair.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import Imported
from labeler.core.formats._common import Where, read_lines, write_atomic
from labeler.core.formats._jsonl import dumps_lines, records
from labeler.core.formats.tasks import Reading, SpanIn, TaskIn, build
from labeler.core.progress import TaskFactory, no_task
from labeler.core.typed import need
from labeler.core.values import Query

BEIR_HEADER = ("query-id", "corpus-id", "score")
LOOKED = "queries.jsonl"


def queries_file(path: Path) -> Path:
    for folder in (path.parent, path.parent.parent):
        if (folder / "queries.jsonl").is_file():
            return folder / "queries.jsonl"
    raise LabelError(
        "qrels hold no questions: put the BEIR queries.jsonl beside the qrels or one folder up",
        file=str(path),
    )


def _questions(path: Path) -> dict[str, str]:
    return {str(need(obj, "_id", (str, int), w)): need(obj, "text", str, w)
            for w, obj in records(path)}  # fmt: skip


def _rows(path: Path, progress: TaskFactory) -> list[tuple[Where, str, str, int]]:
    out = []
    for number, line in read_lines(path, progress=progress):
        cells = line.split("\t") if "\t" in line else line.split()
        if not cells or not line.strip() or tuple(c.strip() for c in cells) == BEIR_HEADER:
            continue
        where = Where(str(path), line=number)
        if len(cells) not in (3, 4):
            raise where.error("a qrels line is 'query-id corpus-id score' or 'qid 0 docid rel'")
        qid, doc, score = (cells[0], cells[1], cells[2]) if len(cells) == 3 else (
            cells[0], cells[2], cells[3])  # fmt: skip
        out.append((where, qid.strip(), doc.strip(), relevance(score.strip(), where)))
    return out


_RELEVANCE = re.compile(r"-?[0-9]{1,4}")
"""A relevance grade: plain ASCII digits, an optional minus (TREC marks -1, -2), at most
four digits. Python's int() also takes `1_0`, `١` (Arabic-Indic one) and 23-digit numbers."""
MAX_RELEVANCE = 1000
"""Largest relevance grade magnitude accepted (graded qrels use 0–4, some 0–100)."""


def relevance(cell: str, where: Where) -> int:
    """The relevance of a qrels line: a plain ASCII integer within ±MAX_RELEVANCE."""
    if not _RELEVANCE.fullmatch(cell) or abs(int(cell)) > MAX_RELEVANCE:
        raise where.at("score").error(
            f"relevance {cell[:30]!r} is not a plain integer between -{MAX_RELEVANCE} and "
            f"{MAX_RELEVANCE}"
        )
    return int(cell)


def _doc(corpus: Corpus, corpus_id: str, where: Where) -> str:
    if corpus_id in corpus:
        return corpus_id
    stems = [d.id for d in corpus if PurePosixPath(d.id).stem == corpus_id]
    if len(stems) != 1:
        raise where.error(f"corpus id {corpus_id!r} names {len(stems)} documents of the corpus")
    return stems[0]


def read(
    path: Path, corpus: Corpus, *, existing: Sequence[Query], progress: TaskFactory = no_task
) -> Imported:
    questions = _questions(queries_file(path))
    tasks = []
    for where, qid, corpus_id, score in _rows(path, progress):
        if qid not in questions:
            raise where.error(f"query {qid!r} is not in queries.jsonl")
        doc = _doc(corpus, corpus_id, where)
        spans = (SpanIn(0, len(corpus.text(doc)), None, where),) if score > 0 else ()
        tasks.append(TaskIn(where, questions[qid], spans, doc=doc))
    return build(tasks, Reading(corpus, (), "qrels"), existing, LOOKED, progress)


def write(queries: Sequence[Query], corpus: Corpus, out: Path) -> None:
    """`out` gets the BEIR qrels (one line per query and evidence document, score 1) and
    `queries.jsonl` appears beside it."""
    lines = ["\t".join(BEIR_HEADER)]
    for q in queries:
        lines += [f"{q.id}\t{doc}\t1" for doc in dict.fromkeys(s.doc for s in q.evidence)]
    write_atomic(out.with_name("queries.jsonl"),
                 dumps_lines([{"_id": q.id, "text": q.text} for q in queries]))  # fmt: skip
    write_atomic(out, "\n".join(lines) + "\n")

"""Chroma's chunking-evaluation questions CSV, `chroma-csv` (§4).

Chroma's evaluator reads a corpus file with `open(path).read()`, so `start_index` and
`end_index` count code points in that string: UTF-8, universal newlines, a BOM kept as
U+FEFF. Reading remaps them to canonical offsets and checks each `content`; writing maps
canonical offsets back the same way, so the file works with Chroma's evaluator and
round-trips. For CRLF files the written offsets are canonical ones (universal newlines
already turn CRLF into LF); for files with a BOM or text not in NFC they are not.
Without a corpus folder the canonical text is all there is and offsets are canonical.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.formats import Imported
from labeler.core.formats._common import (
    QUESTION,
    FreshIds,
    RawView,
    Where,
    clean_text,
    csv_rows,
    file_view,
    raw_span,
    text_key,
    write_atomic,
)
from labeler.core.progress import TaskFactory, no_task
from labeler.core.typed import json_tree, need
from labeler.core.values import Boundary, Query, Span, Status

COLUMNS = ("question", "references", "corpus_id")
SLICE = "chroma-csv"
"""The slice every imported query is tagged with."""


@dataclass
class _Row:
    """One question being gathered: repeated rows for other documents add evidence."""

    line: int
    """Line of the first row with this question."""
    text: str
    """The question."""
    docs: set[str] = field(default_factory=set)
    """Documents the question's rows named."""
    spans: list[Span] = field(default_factory=list)
    """Evidence, in file order."""


def read(
    path: Path, corpus: Corpus, *, existing: Sequence[Query], progress: TaskFactory = no_task
) -> Imported:
    """Validate every row, then build `labelled` queries; duplicates become warnings."""
    finder = _DocFinder(corpus)
    views: dict[str, RawView] = {}
    rows: dict[str, _Row] = {}
    warnings: list[str] = []
    for line, record in csv_rows(path, COLUMNS, progress=progress):
        where = Where(str(path), line)
        text = clean_text(record["question"])
        if not text:
            raise where.at("question").error("the question is empty")
        refs = _references(record["references"], where.at("references"))
        doc = finder.find(record["corpus_id"], bool(refs), where.at("corpus_id"))
        spans = [_span(views, corpus, doc, ref, where.at(f"references[{i}]")) for i, ref in refs]
        row = rows.setdefault(text_key(text), _Row(line, text))
        if doc is not None and doc in row.docs:
            warnings.append(
                f"{path}:{line}: the question of line {row.line} again for {doc}; references merged"
            )
        if doc is not None:
            row.docs.add(doc)
        row.spans.extend(spans)
    return _build(rows.values(), existing, warnings, str(path))


def _references(cell: str, where: Where) -> list[tuple[int, dict[str, Any]]]:
    try:
        data = json_tree(cell, where) if cell.strip() else []
    except json.JSONDecodeError as exc:
        raise where.error(f"not valid JSON: {exc.msg}", offset=exc.pos) from None
    if not isinstance(data, list):
        raise where.error("references must be a JSON list")
    return list(enumerate(data))


def _span(
    views: dict[str, RawView], corpus: Corpus, doc: str | None, ref: Any, where: Where
) -> Span:
    assert doc is not None  # the finder insists on a document when there are references
    content = need(ref, "content", str, where)
    start = need(ref, "start_index", int, where)
    end = need(ref, "end_index", int, where)
    if doc not in views:
        views[doc] = file_view(corpus, doc)
    return raw_span(views[doc], doc, start, end, content, where)


def _build(
    rows: Iterable[_Row], existing: Sequence[Query], warnings: list[str], file: str
) -> Imported:
    known = {text_key(q.text): q.id for q in existing}
    ids = FreshIds.after(existing)
    queries: list[Query] = []
    for row in rows:
        if text_key(row.text) in known:
            warnings.append(
                f"{file}:{row.line}: skipped {row.text[:60]!r}, already query "
                f"{known[text_key(row.text)]}"
            )
            continue
        spans = tuple(dict.fromkeys(row.spans))
        queries.append(
            Where(file, row.line).query(
                QUESTION,
                id=ids.next(),
                text=row.text,
                boundary=Boundary.OTHER,
                slices=(SLICE,),
                status=Status.LABELLED if spans else Status.DRAFT,
                evidence=spans,
            )
        )
    return Imported(tuple(queries), warnings=tuple(warnings), fresh=frozenset(ids.handed))


class _DocFinder:
    """Chroma names a corpus by its file stem; we also accept the id, or the id less its
    suffix, so that stems shared by two folders can still be told apart."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.names: dict[str, set[str]] = {}
        for doc in corpus.documents:
            path = PurePosixPath(doc)
            for name in (path.stem, path.with_suffix("").as_posix()):
                self.names.setdefault(name, set()).add(doc)

    def find(self, corpus_id: str, needed: bool, where: Where) -> str | None:
        corpus_id = corpus_id.strip()
        if not corpus_id and not needed:
            return None
        if corpus_id in self.corpus:
            return corpus_id
        hits = sorted(self.names.get(corpus_id, ()))
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise where.error(f"corpus_id {corpus_id!r} names no document of the corpus")
        raise where.error(
            f"corpus_id {corpus_id!r} is ambiguous: {', '.join(hits)}",
            hint="use the document id (its path in the corpus folder) as corpus_id",
        )

    def name(self, doc: str) -> str:
        """The shortest name that finds `doc` again: its stem when no other doc shares it."""
        path = PurePosixPath(doc)
        for name in (path.stem, path.with_suffix("").as_posix()):
            if self.names.get(name) == {doc} and name not in self.corpus:
                return name
        return doc


def write(queries: Sequence[Query], corpus: Corpus, out: Path) -> None:
    """One row per query and document; a query without evidence gets `[]` and no corpus."""
    finder = _DocFinder(corpus)
    views: dict[str, RawView] = {}
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for q in queries:
        if not q.evidence:
            writer.writerow([q.text, "[]", ""])
        for doc in dict.fromkeys(s.doc for s in q.evidence):
            if doc not in views:
                views[doc] = file_view(corpus, doc)
            refs = [_reference(views[doc], s, corpus) for s in q.evidence if s.doc == doc]
            writer.writerow([q.text, json.dumps(refs), finder.name(doc)])
    write_atomic(out, buf.getvalue())


def _reference(view: RawView, span: Span, corpus: Corpus) -> dict[str, Any]:
    span.check(corpus.text(span.doc))
    return {
        "content": span.quote,
        "start_index": view.to_raw(span.start),
        "end_index": view.to_raw(span.end),
    }

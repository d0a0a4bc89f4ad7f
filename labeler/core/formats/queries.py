"""Bare questions, `queries` (§4): production misses to label, say.

A text file has one question per line (blank lines skipped; `#` comments skipped with a
warning naming the line); a `.csv` file has a `question` column. Questions come in as
`draft` queries without evidence and without a slice (`labels import --slice NAME` tags
them: a `queries` tag on every question said nothing), and a question already asked
(ignoring case and spacing) is reported, not imported twice; the summary counts lines
read, new, duplicates.
Writing mirrors reading: `.csv` gets the column, anything else one question per line,
with whitespace runs collapsed in the text file, whose lines cannot hold a newline.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import Imported
from labeler.core.formats._common import (
    QUESTION,
    FreshIds,
    Where,
    clean_text,
    csv_rows,
    read_lines,
    text_key,
    write_atomic,
)
from labeler.core.progress import TaskFactory, no_task
from labeler.core.typed import MAX_QUERIES_FILE
from labeler.core.values import Query


def read(
    path: Path, corpus: Corpus, *, existing: Sequence[Query], progress: TaskFactory = no_task
) -> Imported:
    """Every new question as a draft; duplicates (of the store or the file) as warnings."""
    seen = {text_key(q.text): f"query {q.id}" for q in existing}
    ids = FreshIds.after(existing)
    queries: list[Query] = []
    read_lines, questions, comments = _questions(path, progress)
    if not questions:  # as the task readers refuse a file without a record (issue 20)
        raise LabelError("the file holds no question: nothing to import", file=str(path))
    warnings = [(line, f"{path}:{line}: skipped a # comment line") for line in comments]
    for line, text in questions:
        key = text_key(text)
        if key in seen:
            warnings.append((line, f"{path}:{line}: skipped {text[:60]!r}, already {seen[key]}"))
            continue
        seen[key] = f"line {line}"
        names = QUESTION if path.suffix.lower() == ".csv" else {"text": ""}
        queries.append(Where(str(path), line).query(names, id=ids.next(), text=text))
    summary = _summary(path, read_lines, len(queries), len(questions) - len(queries), comments)
    said = tuple(w for _, w in sorted(warnings))  # in line order
    return Imported(tuple(queries), warnings=said, fresh=frozenset(ids.handed), summary=summary)


def _summary(path: Path, read: int, new: int, doubles: int, comments: list[int]) -> str:
    """`read 7 line(s) of q.txt: 0 new question(s), 5 duplicate(s), 1 comment(s)`."""
    unit = "row" if path.suffix.lower() == ".csv" else "line"
    said = f"read {read} {unit}(s) of {path}: {new} new question(s), {doubles} duplicate(s)"
    return said + (f", {len(comments)} comment(s)" if comments else "")


def _questions(path: Path, progress: TaskFactory) -> tuple[int, list[tuple[int, str]], list[int]]:
    """(lines or rows read, [(line, question)] in order, the lines that are `#` comments)."""
    if path.suffix.lower() == ".csv":
        rows = list(csv_rows(path, ("question",), MAX_QUERIES_FILE, progress))
        found = [(line, clean_text(row["question"])) for line, row in rows]
        return len(rows), [(line, text) for line, text in found if text], []
    texts = [
        (line, clean_text(raw)) for line, raw in enumerate(_universal(path, progress), start=1)
    ]
    comments = [line for line, text in texts if text.startswith("#")]
    questions = [(line, text) for line, text in texts if text and not text.startswith("#")]
    return len(texts), questions, comments


def _universal(path: Path, progress: TaskFactory) -> Iterator[str]:
    """The file's lines as editors count them (`\\r\\n`, `\\n` or a lone `\\r` ends one),
    streamed: the file is sized by a stat and no line is held past the shared bound."""
    for _, line in read_lines(path, MAX_QUERIES_FILE, progress):
        yield from line.removesuffix("\r").split("\r")


def write(queries: Sequence[Query], corpus: Corpus, out: Path) -> None:
    """The questions only, in the given order."""
    if out.suffix.lower() == ".csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["question"])
        writer.writerows([q.text] for q in queries)
        write_atomic(out, buf.getvalue())
    else:
        write_atomic(out, "".join(" ".join(q.text.split()) + "\n" for q in queries))

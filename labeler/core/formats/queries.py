"""Bare questions, `queries` (§4): production misses to label, say.

A text file has one question per line (blank lines and `#` comments skipped); a `.csv`
file has a `question` column. Questions come in as `draft` queries without evidence, and
a question already asked (ignoring case and spacing) is reported, not imported twice.
Writing mirrors reading: `.csv` gets the column, anything else one question per line,
with whitespace runs collapsed in the text file, whose lines cannot hold a newline.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from pathlib import Path

from labeler.core.corpus import Corpus
from labeler.core.formats import Imported
from labeler.core.formats._common import (
    FreshIds,
    clean_text,
    csv_rows,
    read_text,
    text_key,
    write_atomic,
)
from labeler.core.values import Query, Status

SLICE = "queries"
"""The slice every imported query is tagged with."""


def read(path: Path, corpus: Corpus, *, existing: Sequence[Query]) -> Imported:
    """Every new question as a draft; duplicates (of the store or the file) as warnings."""
    seen = {text_key(q.text): f"query {q.id}" for q in existing}
    ids = FreshIds.after(existing)
    queries: list[Query] = []
    warnings: list[str] = []
    for line, text in _questions(path):
        key = text_key(text)
        if key in seen:
            warnings.append(f"{path}:{line}: skipped {text[:60]!r}, already {seen[key]}")
            continue
        seen[key] = f"line {line}"
        queries.append(Query(id=ids.next(), text=text, slices=(SLICE,), status=Status.DRAFT))
    return Imported(tuple(queries), warnings=tuple(warnings), fresh=frozenset(ids.handed))


def _questions(path: Path) -> Iterator[tuple[int, str]]:
    """(line, question) for every question in the file, in order."""
    if path.suffix.lower() == ".csv":
        for line, row in csv_rows(path, ("question",)):
            text = clean_text(row["question"])
            if text:
                yield line, text
        return
    lines = io.StringIO(read_text(path), newline=None)  # universal newlines, as editors count
    for line, raw in enumerate(lines, start=1):
        text = clean_text(raw)
        if text and not text.startswith("#"):
            yield line, text


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

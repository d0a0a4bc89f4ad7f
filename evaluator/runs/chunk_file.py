"""The run folder's chunk table, `chunks.tsv` (§17, §18): every unit a candidate indexes or
sends, as offsets, so oracle recall, precision-Ω, the context lists and every figure at
budget can be recomputed from the folder alone; its sha256 is in run.json, checked on read.

One row per unit: candidate, unit (`chunk` indexed; `parent` or `window` sent for one
retrieved chunk), document, start, end, where its prefix was copied from (`a-b` ranges,
space-separated; empty without a prefix) and each range's kind (`heading`, `table-header`
or `fence`, in the same order). Offsets only, never text; fields are tab-separated and
quoted by the csv module, so any document id survives the trip.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.runs.model import CHUNK_TABLE_FILE, RunFile
from evaluator.runs.model_json import RunFileError, Whole
from labeler.core.files.reading import read_bounded

FILE_NAME = CHUNK_TABLE_FILE
"""The chunk table's name in the run folder."""
HEADER = ("candidate", "unit", "doc", "start", "end", "prefix_source", "prefix_kind")
"""The columns, in order; the first line of the file."""
UNITS = ("chunk", "parent", "window")
"""What a row is: a chunk of the index, or a unit sent for one (§18)."""
MAX_TABLE = 1024 * 1024 * 1024
"""Bytes of chunks.tsv read at most (a chunk file's bound)."""


def chunk_table_tsv(
    tables: Mapping[str, Sequence[Chunk]],
    units: Mapping[str, tuple[str, Sequence[Chunk]]] | None = None,
) -> str:
    """Every candidate's chunks, then (`units`: name -> (unit kind, units)) what it sends,
    in run order then table order, as the file's text."""
    out = io.StringIO()
    writer = csv.writer(out, dialect="excel-tab", lineterminator="\n")
    writer.writerow(HEADER)
    for name, chunks in tables.items():
        writer.writerows((name, "chunk", *row) for row in _rows(chunks))
        kind, sent = (units or {}).get(name, ("", ()))
        writer.writerows((name, kind, *row) for row in _rows(sent))
    return out.getvalue()


def digest(text: str) -> str:
    """run.json's `chunk_table.sha256` of the file's text."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _rows(chunks: Sequence[Chunk]) -> Iterator[tuple[str, int, int, str, str]]:
    """(doc, start, end, prefix source, prefix kinds) per chunk; a `ChunkTable` from its
    columns, without making a Chunk (and hashing its id) per row."""
    if isinstance(chunks, ChunkTable):
        docs, sources, prefixes = chunks.docs, chunks.sources, chunks.prefixes
        for i, (d, s, e) in enumerate(zip(chunks.doc_of, chunks.starts, chunks.ends, strict=True)):
            found = sources.get(i, ())
            yield docs[d], int(s), int(e), source_text(found), kinds(prefixes.get(i, ""), found)
        return
    for c in chunks:
        yield c.doc, c.start, c.end, source_text(c.prefix_source), kinds(c.prefix, c.prefix_source)


def source_text(ranges: Sequence[tuple[int, int]]) -> str:
    """Prefix source ranges as the file writes them: `0-9 11-43`."""
    return " ".join(f"{a}-{b}" for a, b in ranges)


def kinds(prefix: str, ranges: Sequence[tuple[int, int]]) -> str:
    """Each prefix range's kind, read off the prefix the splitter copied (a breadcrumb's
    heading lines, each ended by a line break, then a table's or fence's head)."""
    said, at = [], 0
    for a, b in ranges:
        while prefix[at : at + 1] == "\n":
            at += 1
        part, at = prefix[at : at + b - a], at + b - a
        said.append(range_kind(part))
    return " ".join(said)


def range_kind(part: str) -> str:
    """`fence` for a code fence's opening, `table-header` for a table's head rows,
    else `heading`."""
    first = part.lstrip()
    if first.startswith(("```", "~~~")):
        return "fence"
    return "table-header" if "|" in part and not first.startswith("#") else "heading"


@dataclass(frozen=True)
class Row:
    """One unit of chunks.tsv."""

    unit: str
    """`chunk`, `parent` or `window`."""
    chunk: Chunk
    """Its offsets and prefix source (id: `<candidate>:<unit>:<row>`; no prefix text)."""
    prefix_kinds: tuple[str, ...]
    """Per prefix range, its kind."""


def read_chunk_table(folder: Path, run: RunFile) -> dict[str, list[Row]]:
    """chunks.tsv beside `run`'s run.json, by candidate; a file whose sha256 is not the one
    run.json records, or a row out of shape, raises RunFileError naming it (a run written
    before the digest was kept is read unchecked)."""
    path = folder / FILE_NAME
    try:
        raw = read_bounded(path, MAX_TABLE, Whole(str(path)), follow=False)
    except FileNotFoundError:
        raise RunFileError("no chunk table beside the run", file=str(path)) from None
    except OSError as exc:
        raise RunFileError(f"cannot read the chunk table: {exc.strerror or exc}",
                           file=str(path)) from None  # fmt: skip
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RunFileError("not UTF-8 text", file=str(path), offset=exc.start) from None
    expected = run.chunk_table_sha256
    if expected is not None and (found := digest(text)) != expected:
        raise RunFileError(
            f"chunks.tsv does not match its run.json: its sha256 is {found}, run.json "
            f"records {expected}", file=str(path),
            hint="the chunk table was changed or replaced after the run; run eval again",
        )  # fmt: skip
    return parse_rows(text, str(path), set(run.names))


def parse_rows(text: str, file: str, names: set[str]) -> dict[str, list[Row]]:
    """The rows of chunks.tsv's text, by candidate, each checked for shape."""
    lines = csv.reader(io.StringIO(text), dialect="excel-tab")
    if tuple(next(lines, ())) != HEADER:
        raise RunFileError(f"the first line must be {' '.join(HEADER)}", file=file, line=1)
    out: dict[str, list[Row]] = {}
    for n, fields in enumerate(lines, start=2):
        row = _row(fields, names, file, n, sum(map(len, out.values())))
        out.setdefault(fields[0], []).append(row)
    return out


def _row(fields: list[str], names: set[str], file: str, line: int, i: int) -> Row:
    def bad(why: str) -> RunFileError:
        return RunFileError(why, file=file, line=line)

    if len(fields) != len(HEADER):
        raise bad(f"{len(fields)} fields, not {len(HEADER)}")
    name, unit, doc, start, end, source, kind = fields
    if name not in names:
        raise bad(f"candidate {name[:40]!r} is not in the run")
    if unit not in UNITS:
        raise bad(f"unit {unit[:20]!r} is none of {', '.join(UNITS)}")
    try:
        ranges = tuple((int(a), int(b)) for a, b in (r.split("-") for r in source.split()))
        a, b = int(start), int(end)
    except ValueError:
        raise bad("offsets must be whole numbers (`a-b` ranges for the prefix)") from None
    if not 0 <= a <= b or any(not 0 <= x <= y for x, y in ranges):
        raise bad("a range ends before it starts")
    said = tuple(kind.split())
    if len(said) != len(ranges):
        raise bad(f"{len(said)} prefix kinds for {len(ranges)} prefix ranges")
    return Row(unit, Chunk(f"{name}:{unit}:{i}", doc, a, b, "", ranges), said)

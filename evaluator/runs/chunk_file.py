"""The run folder's chunk table, `chunks.tsv` (§17): every candidate's chunks as offsets, so
oracle recall, precision-Ω and every figure at budget can be recomputed from the folder alone.

One row per chunk: candidate, document, start, end and where its prefix was copied from
(`a-b` ranges, space-separated; empty without a prefix). Offsets only, never text; fields
are tab-separated and quoted by the csv module, so any document id survives the trip.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable

FILE_NAME = "chunks.tsv"
"""The chunk table's name in the run folder."""

HEADER = ("candidate", "doc", "start", "end", "prefix_source")
"""The columns, in order; the first line of the file."""


def chunk_table_tsv(tables: Mapping[str, Sequence[Chunk]]) -> str:
    """Every candidate's chunks, in run order then table order, as the file's text."""
    out = io.StringIO()
    writer = csv.writer(out, dialect="excel-tab", lineterminator="\n")
    writer.writerow(HEADER)
    for name, chunks in tables.items():
        writer.writerows((name, *row) for row in _rows(chunks))
    return out.getvalue()


def _rows(chunks: Sequence[Chunk]) -> Iterator[tuple[str, int, int, str]]:
    """(doc, start, end, prefix source) per chunk; a `ChunkTable` from its columns, without
    making a Chunk (and hashing its id) per row."""
    if isinstance(chunks, ChunkTable):
        docs, sources = chunks.docs, chunks.sources
        for i, (d, s, e) in enumerate(zip(chunks.doc_of, chunks.starts, chunks.ends, strict=True)):
            yield docs[d], int(s), int(e), source_text(sources.get(i, ()))
        return
    for c in chunks:
        yield c.doc, c.start, c.end, source_text(c.prefix_source)


def source_text(ranges: Sequence[tuple[int, int]]) -> str:
    """Prefix source ranges as the file writes them: `0-9 11-43`."""
    return " ".join(f"{a}-{b}" for a, b in ranges)

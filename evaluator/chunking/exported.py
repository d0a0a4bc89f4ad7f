"""`splitter = "chunks"`: the chunks a team's own pipeline exported, as JSONL (SPEC §14).

Each line is `{"doc": …, "start": …, "end": …}` or `{"doc": …, "text": …}` (optionally a
`prefix`). Offsets are code points into canonical text; a chunk given by text alone is
placed only where its (canonicalised) text occurs exactly once, otherwise the line is
refused. Every chunk then passes the same verification as a library splitter's.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluator.chunking.adapters.base import LibraryChunk
from evaluator.chunking.adapters.verify import verify
from evaluator.chunking.pieces import Piece
from labeler.core.canonical import canonicalize
from labeler.core.errors import ConfigError

MAX_LINE_CHARS = 10_000_000
"""A longer line is refused rather than parsed."""


@dataclass(frozen=True)
class ExportedChunk:
    """One line of the chunk file, as written."""

    line: int
    """1-based line number in the file."""
    doc: str
    """Document id."""
    start: int | None
    """Start offset, when the line gives offsets."""
    end: int | None
    """End offset, exclusive, when the line gives offsets."""
    text: str | None
    """Chunk text, when the line gives it."""
    prefix: str
    """Text embedded before the chunk, outside its offsets."""


def file_digest(path: str) -> str:
    """sha256 of the file's bytes; a missing file is a ConfigError on `options.path`."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise ConfigError(f"cannot read chunk file: {exc.strerror}", file=path) from None


def _field(obj: Mapping[str, Any], key: str, kind: type, where: tuple[str, int]) -> Any:
    value = obj.get(key)
    if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
        return value
    raise ConfigError(
        f"{key!r} must be {kind.__name__}, got {type(value).__name__}",
        file=where[0], line=where[1], key=key,
    )  # fmt: skip


def _parse_line(raw: str, where: tuple[str, int]) -> ExportedChunk:
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not JSON: {exc.msg}", file=where[0], line=where[1]) from None
    if not isinstance(obj, dict):
        raise ConfigError("each line must be a JSON object", file=where[0], line=where[1])
    doc = _field(obj, "doc", str, where)
    start, end = _field(obj, "start", int, where), _field(obj, "end", int, where)
    text, prefix = _field(obj, "text", str, where), _field(obj, "prefix", str, where)
    if doc is None:
        raise ConfigError("missing key 'doc'", file=where[0], line=where[1], key="doc")
    if (start is None) != (end is None) or (start is None and text is None):
        message = "a chunk needs 'start' and 'end', or 'text'"
        raise ConfigError(message, file=where[0], line=where[1])
    return ExportedChunk(where[1], doc, start, end, text, prefix or "")


@functools.lru_cache(maxsize=4)
def read_chunk_file(path: str, digest: str) -> dict[str, tuple[ExportedChunk, ...]]:
    """Document -> its lines, in file order; `digest` keys the cache to the file's bytes."""
    try:
        content = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read chunk file: {exc}", file=path) from None
    by_doc: dict[str, list[ExportedChunk]] = {}
    for number, raw in enumerate(content.splitlines(), 1):
        if len(raw) > MAX_LINE_CHARS:
            raise ConfigError("line too long", file=path, line=number)
        if raw.strip():
            chunk = _parse_line(raw, (path, number))
            by_doc.setdefault(chunk.doc, []).append(chunk)
    if not by_doc:
        raise ConfigError("the chunk file holds no chunks", file=path)
    return {doc: tuple(chunks) for doc, chunks in by_doc.items()}


def _occurrences(text: str, needle: str, limit: int = 3) -> list[int]:
    found: list[int] = []
    at = text.find(needle)
    while at != -1 and len(found) < limit:
        found.append(at)
        at = text.find(needle, at + 1)
    return found


def _place(chunk: ExportedChunk, text: str, path: str) -> LibraryChunk:
    if chunk.start is not None and chunk.end is not None:
        given = text[chunk.start : chunk.end] if chunk.text is None else chunk.text
        return LibraryChunk(chunk.start, chunk.end, given, chunk.prefix)
    needle = canonicalize(chunk.text or "")
    found = _occurrences(text, needle) if needle else []
    if len(found) != 1:
        where = "is not in" if not found else f"occurs more than once (at {found}) in"
        message = f"the chunk text {where} document {chunk.doc!r}; give 'start' and 'end'"
        raise ConfigError(message, file=path, line=chunk.line, key="text")
    return LibraryChunk(found[0], found[0] + len(needle), needle, chunk.prefix)


def _order(item: tuple[LibraryChunk, int]) -> tuple[int, int]:
    return item[0].start, item[0].end


def exported_pieces(path: str, doc: str, text: str) -> list[Piece]:
    """The file's verified pieces of one document."""
    lines = read_chunk_file(path, file_digest(path)).get(doc, ())
    placed = sorted(((_place(c, text, path), c.line) for c in lines), key=_order)
    labels = [f"line {line}" for _, line in placed]
    try:
        return verify(doc, text, [c for c, _ in placed], labels)
    except ConfigError as exc:
        raise ConfigError(f"chunk file: {exc.message}", file=path, offset=exc.offset) from None


def unknown_documents(path: str, known: set[str]) -> list[tuple[str, int]]:
    """(doc, first line) of every document in the file that the corpus lacks."""
    lines = read_chunk_file(path, file_digest(path))
    return [(doc, chunks[0].line) for doc, chunks in lines.items() if doc not in known]

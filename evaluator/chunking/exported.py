"""`splitter = "chunks"`: the chunks a team's own pipeline exported, as JSONL (design §14).

Each line is `{"doc": …, "start": …, "end": …}` or `{"doc": …, "text": …}` (optionally a
`prefix`, and the team's own `id`, through which a ranked file may name the chunk, §19).
Offsets are code points into canonical text; a chunk given by text alone is placed only
where its (canonicalised) text occurs exactly once, otherwise the line is refused. Every
chunk then passes the same verification as a library splitter's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from evaluator.chunking.adapters.base import LibraryChunk
from evaluator.chunking.adapters.verify import verify
from evaluator.chunking.pieces import Piece
from labeler.core.corpus.canonical import canonicalize
from labeler.core.errors import ConfigError
from labeler.core.files.reading import bounded_lines, open_regular
from labeler.core.typed import MAX_CHUNK_FILE, Refusal, json_tree


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
    id: str | None = None
    """The team's own id of the chunk (a whole number is kept as its digits)."""


@dataclass(frozen=True)
class _Line:
    """A line of the chunk file (0: the file itself), where its refusals point."""

    file: str
    """The chunk file."""
    line: int = 0
    """1-based line; 0 for the whole file."""
    key: str | None = None
    """The key in the line's object."""

    def at(self, key: str) -> _Line:
        return _Line(self.file, self.line, key if self.key is None else f"{self.key}.{key}")

    def refuse(self, refusal: Refusal) -> ConfigError:
        message = refusal.message if self.line else f"the chunk file {refusal.message}"
        line, offset = self.line or None, refusal.offset
        return ConfigError(message, file=self.file, line=line, key=self.key, offset=offset)


@dataclass(frozen=True)
class ChunkFile:
    """A chunk file read once: its bytes' digest and its lines by document."""

    digest: str
    """sha256 of the file's bytes (hex)."""
    lines: dict[str, tuple[ExportedChunk, ...]]
    """Document -> its lines, in file order."""


def chunk_file(path: str) -> ChunkFile:
    """The file read and parsed in one bounded pass; again only when it changed on disk."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ConfigError(f"cannot read chunk file: {exc.strerror}", file=path) from None
    return _read(path, (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))


def file_digest(path: str) -> str:
    """sha256 of the file's bytes; a missing file is a ConfigError naming it."""
    return chunk_file(path).digest


def read_chunk_file(path: str) -> dict[str, tuple[ExportedChunk, ...]]:
    """Document -> its lines, in file order."""
    return chunk_file(path).lines


@functools.lru_cache(maxsize=4)
def _read(path: str, version: tuple[int, int, int, int]) -> ChunkFile:
    """`version` (device, inode, size, mtime) keys the cache to the file as it is on disk."""
    digest = hashlib.sha256()
    by_doc: dict[str, list[ExportedChunk]] = {}
    try:
        with open_regular(path, MAX_CHUNK_FILE, _Line(path)) as handle:
            lines = bounded_lines(
                handle, MAX_CHUNK_FILE, partial(_Line, path), update=digest.update
            )
            for number, raw in lines:
                if raw.strip():
                    chunk = _parse_line(raw, _Line(path, number))
                    by_doc.setdefault(chunk.doc, []).append(chunk)
    except OSError as exc:
        raise ConfigError(f"cannot read chunk file: {exc.strerror}", file=path) from None
    if not by_doc:
        raise ConfigError("the chunk file holds no chunks", file=path)
    return ChunkFile(digest.hexdigest(), {doc: tuple(chunks) for doc, chunks in by_doc.items()})


def _once(chunk: ExportedChunk, ids: dict[str, int], path: str) -> None:
    """An id names one chunk: a second line with it is refused, naming the first."""
    if chunk.id is None:
        return
    if chunk.id in ids:
        message = f"id {chunk.id[:40]!r} is given again (first on line {ids[chunk.id]})"
        raise ConfigError(message, file=path, line=chunk.line, key="id")
    ids[chunk.id] = chunk.line


def _ident(obj: Mapping[str, Any], where: _Line) -> str | None:
    value = obj.get("id")
    if value is None or (isinstance(value, str) and value):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    message = "'id' must be non-empty text or a whole number"
    raise ConfigError(message, file=where.file, line=where.line, key="id")


def _field(obj: Mapping[str, Any], key: str, kind: type, where: _Line) -> Any:
    value = obj.get(key)
    if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
        return value
    message = f"{key!r} must be {kind.__name__}, got {type(value).__name__}"
    raise ConfigError(message, file=where.file, line=where.line, key=key)


def _parse_line(raw: str, where: _Line) -> ExportedChunk:
    """One line, bounded as every input is (nesting, numbers, text: labeler.core.typed)."""
    try:
        obj = json_tree(raw, where)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not JSON: {exc.msg}", file=where.file, line=where.line) from None
    if not isinstance(obj, dict):
        raise ConfigError("each line must be a JSON object", file=where.file, line=where.line)
    doc = _field(obj, "doc", str, where)
    start, end = _field(obj, "start", int, where), _field(obj, "end", int, where)
    text, prefix = _field(obj, "text", str, where), _field(obj, "prefix", str, where)
    if doc is None:
        raise ConfigError("missing key 'doc'", file=where.file, line=where.line, key="doc")
    if (start is None) != (end is None) or (start is None and text is None):
        message = "a chunk needs 'start' and 'end', or 'text'"
        raise ConfigError(message, file=where.file, line=where.line)
    return ExportedChunk(where.line, doc, start, end, text, prefix or "", _ident(obj, where))


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
    lines = read_chunk_file(path).get(doc, ())
    placed = sorted(((_place(c, text, path), c.line) for c in lines), key=_order)
    labels = [f"line {line}" for _, line in placed]
    try:
        return verify(doc, text, [c for c, _ in placed], labels)
    except ConfigError as exc:
        raise ConfigError(f"chunk file: {exc.message}", file=path, offset=exc.offset) from None


def unknown_documents(path: str, known: set[str]) -> list[tuple[str, int]]:
    """(doc, first line) of every document in the file that the corpus lacks."""
    lines = read_chunk_file(path)
    return [(doc, chunks[0].line) for doc, chunks in lines.items() if doc not in known]


def chunk_ids(path: str, texts: Mapping[str, str]) -> dict[str, tuple[str, int, int]]:
    """The file's own ids -> where each of those chunks lies (doc, start, end), so a ranked
    item's `{"id": …}` may name the team's id (§19); lines without an id are left out, an
    id on two lines is refused (asked only when a ranked file or a search names ids)."""
    named = sorted((c for lines in read_chunk_file(path).values() for c in lines
                    if c.id is not None and c.doc in texts), key=lambda c: c.line)  # fmt: skip
    out: dict[str, tuple[str, int, int]] = {}
    first: dict[str, int] = {}
    for chunk in named:
        _once(chunk, first, path)
        placed = _place(chunk, texts[chunk.doc], path)
        out[str(chunk.id)] = (chunk.doc, placed.start, placed.end)
    return out

"""The §14 check of a library's chunks, and the ambiguity of searched placements.

A library's offsets are trusted only after every chunk passes: its text equals the
canonical text at its offsets, starts increase, no chunk lies inside the one before it,
and no non-whitespace character is left uncovered (whitespace-only gaps are allowed, as
trimming splitters leave them). The first bad chunk is named with what it should be.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from evaluator.chunking.adapters.base import LibraryChunk
from evaluator.chunking.pieces import Piece
from labeler.core.errors import ConfigError

SHOWN = 60
"""Characters of a chunk text quoted in a message."""


class AmbiguousPlacement(UserWarning):
    """A searched chunk text occurs more than once in its document."""


@dataclass(frozen=True)
class Ambiguity:
    """One chunk whose text a searching library could have placed elsewhere."""

    index: int
    """The chunk's index in the document."""
    start: int
    """Where the library placed it."""
    occurrences: int
    """How often its text occurs in the document."""


def _quote(text: str) -> str:
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "…")


def _bad(doc: str, label: str, chunk: LibraryChunk, text: str, problem: str) -> ConfigError:
    found = text[max(chunk.start, 0) : max(chunk.end, 0)]
    texts = (
        f"its text {_quote(chunk.text)} is at the offsets"
        if found == chunk.text
        else f"expected text {_quote(chunk.text)}, text at the offsets {_quote(found)}"
    )
    message = f"document {doc!r}, {label} at ({chunk.start}, {chunk.end}): {problem}; {texts}"
    return ConfigError(message, key="splitter", offset=chunk.start)


def _problem(chunk: LibraryChunk, before: LibraryChunk | None, text: str) -> str | None:
    if chunk.start < 0:
        return "the library could not place it (negative start)"
    if not chunk.start < chunk.end <= len(text):
        return f"empty, or ends beyond the document's end ({len(text)})"
    if text[chunk.start : chunk.end] != chunk.text:
        return "text differs from the canonical text at its offsets"
    if before is not None and chunk.start <= before.start:
        return f"starts at or before the chunk before it ({before.start})"
    if before is not None and chunk.end <= before.end:
        return f"lies inside the chunk before it ({before.start}, {before.end})"
    return None


def misplaced_blanks(text: str, chunks: Sequence[LibraryChunk]) -> tuple[list[LibraryChunk], int]:
    """The chunks without whitespace-only ones that fail the check (a searching library
    with strip_whitespace = false places "\\n\\n" at its first occurrence), and how many
    were dropped: they hold no evidence, and whitespace-only gaps are allowed."""
    kept: list[LibraryChunk] = []
    for chunk in chunks:
        before = kept[-1] if kept else None
        if not chunk.text.strip() and _problem(chunk, before, text) is not None:
            continue
        kept.append(chunk)
    return kept, len(chunks) - len(kept)


def _uncovered(chunks: Sequence[LibraryChunk], text: str) -> int | None:
    """First non-whitespace offset no chunk covers, or None."""
    covered = 0
    for chunk in [*chunks, LibraryChunk(len(text), len(text), "")]:
        gap = text[covered : chunk.start]
        if gap and not gap.isspace():
            return covered + next(i for i, ch in enumerate(gap) if not ch.isspace())
        covered = max(covered, chunk.end)
    return None


def verify(
    doc: str, text: str, chunks: Sequence[LibraryChunk], labels: Sequence[str] = ()
) -> list[Piece]:
    """The chunks as pieces, or ConfigError naming the first bad chunk (by `labels[i]`,
    a chunk file's `line 7`, say; else `chunk i`)."""
    label = [*labels, *(f"chunk {i}" for i in range(len(labels), len(chunks) + 1))]
    before: LibraryChunk | None = None
    for i, chunk in enumerate(chunks):
        problem = _problem(chunk, before, text)
        if problem:
            raise _bad(doc, label[i], chunk, text, problem)
        before = chunk
    missing = _uncovered(chunks, text)
    if missing is not None:
        i = next((i for i, c in enumerate(chunks) if c.start > missing), len(chunks))
        after = f"before {label[i]}" if i < len(chunks) else "after the last chunk"
        message = (
            f"document {doc!r}: character {missing} ({text[missing]!r}) is in no chunk "
            f"({after}); non-whitespace text was left out"
        )
        raise ConfigError(message, key="splitter", offset=missing)
    return [Piece(c.start, c.end, c.prefix) for c in chunks]


def ambiguities(text: str, chunks: Sequence[LibraryChunk]) -> list[Ambiguity]:
    """Chunks whose text occurs more than once in the document."""
    out = []
    for i, chunk in enumerate(chunks):
        count, at = 0, text.find(chunk.text)
        while at != -1 and count < 1000:
            count, at = count + 1, text.find(chunk.text, at + 1)
        if count > 1:
            out.append(Ambiguity(i, chunk.start, count))
    return out


def warn_ambiguous(doc: str, library: str, found: Sequence[Ambiguity]) -> None:
    """One warning per document whose searched placements were ambiguous."""
    if not found:
        return
    first = found[0]
    warnings.warn(
        f"document {doc!r}: {len(found)} chunk(s) placed by the text search of {library} are "
        f"ambiguous (chunk {first.index}, placed at {first.start}, occurs "
        f"{first.occurrences} times)",
        AmbiguousPlacement,
        stacklevel=2,
    )

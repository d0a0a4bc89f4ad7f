"""What a splitter returns for one document, and the rules every splitter's output obeys.

The rules are checked in one place so a user's python splitter is held to exactly the
same contract as the built-in ones, and the property tests can reuse the check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from labeler.core.errors import ConfigError


@dataclass(frozen=True)
class Piece:
    """A chunk of one document before it gets an id."""

    start: int
    """First code point, inclusive."""
    end: int
    """End, exclusive."""
    prefix: str = ""
    """Heading breadcrumb or table header embedded before the text; outside the offsets."""
    prefix_source: tuple[tuple[int, int], ...] = ()
    """Where the prefix's text was copied from in the document, as (start, end) ranges."""


def check_pieces(pieces: Sequence[Piece], text: str) -> Sequence[Piece]:
    """Raise ConfigError unless the pieces are in range, ordered, non-empty and covering.

    Ordered means each piece starts and ends after the one before it, so none lies wholly
    inside its predecessor; covering means no gap and no character left out.
    """
    if not text:
        if pieces:
            raise ConfigError("an empty document must give no chunks")
        return pieces
    previous: Piece | None = None
    for i, piece in enumerate(pieces):
        where = f"chunk {i} ({piece.start}, {piece.end})"
        if not (isinstance(piece.start, int) and isinstance(piece.end, int)):
            raise ConfigError(f"{where}: offsets must be integers")
        if not 0 <= piece.start < piece.end <= len(text):
            raise ConfigError(f"{where}: needs 0 <= start < end <= {len(text)}")
        if previous is None and piece.start != 0:
            raise ConfigError(f"{where}: characters before it belong to no chunk")
        if previous is not None:
            if piece.start <= previous.start or piece.end <= previous.end:
                raise ConfigError(f"{where}: must start and end after the chunk before it")
            if piece.start > previous.end:
                raise ConfigError(f"{where}: gap after the chunk before it", offset=previous.end)
        _check_source(piece, where, len(text))
        previous = piece
    if previous is None or previous.end != len(text):
        raise ConfigError("the chunks do not reach the end of the document", offset=len(text))
    return pieces


def _check_source(piece: Piece, where: str, length: int) -> None:
    """A prefix's source ranges lie in the document, non-empty, and only with a prefix."""
    if piece.prefix_source and not piece.prefix:
        raise ConfigError(f"{where}: prefix source offsets without a prefix")
    for start, end in piece.prefix_source:
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= length):
            raise ConfigError(
                f"{where}: prefix source ({start}, {end}) needs 0 <= start < end <= {length}"
            )

"""Library splitters as candidates (design §14): semchunk, semantic-text-splitter, chonkie,
langchain-text-splitters and llama-index-core, each an optional extra.

One module per library states its options (the library's own names) and returns chunks
as the library reported them; `library_pieces` verifies them (verify.py) before spanlab
uses a single offset. A new library is one module and one row in registry.py.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from evaluator.chunking.adapters.base import Adapter, LibraryChunk, Options
from evaluator.chunking.adapters.registry import LIBRARY_SPLITTERS, Entry
from evaluator.chunking.adapters.verify import (
    AmbiguousPlacement,
    ambiguities,
    misplaced_blanks,
    verify,
    warn_ambiguous,
)
from evaluator.chunking.pieces import Piece
from labeler.core.errors import ConfigError

__all__ = [
    "LIBRARY_SPLITTERS",
    "Adapter",
    "AmbiguousPlacement",
    "LibraryChunk",
    "SkippedWhitespace",
    "adapter_for",
    "check_options",
    "effective_options",
    "library_chunks",
    "library_pieces",
]


T = TypeVar("T")


class SkippedWhitespace(UserWarning):
    """A library returned whitespace-only chunks, which spanlab leaves out."""


def adapter_for(splitter: str) -> tuple[Entry, Adapter]:
    """The registry entry and the adapter of a library splitter name."""
    entry = LIBRARY_SPLITTERS[splitter]
    module: Any = importlib.import_module(f"evaluator.chunking.adapters.{entry.module}")
    adapter: Adapter = module.ADAPTERS[entry.kind]
    return entry, adapter


def check_options(splitter: str, options: Options) -> None:
    """The extra is installed and the options are known, typed and not refused."""
    entry, adapter = adapter_for(splitter)
    entry.version()
    adapter.check(options)
    size = options.get(entry.size_option) if entry.size_option else None
    if isinstance(size, int | float) and size < 1:  # the type was checked just above
        message = f"option {entry.size_option!r} must be at least 1, got {size!r}"
        raise ConfigError(message, key=f"options.{entry.size_option}")


def effective_options(splitter: str, options: Options) -> tuple[int, int | float]:
    """The size and overlap the library runs with: read back from its built splitter where
    the registry names the attribute, else the option as given (a fraction stays one)."""
    entry, adapter = adapter_for(splitter)
    build = adapter.build if entry.size_attribute else None
    built = _failing_as_config(splitter, lambda: build(options)) if build else None
    size = _read(built, entry.size_attribute, options.get(entry.size_option, 0))
    overlap = _read(built, entry.overlap_attribute, options.get(entry.overlap_option, 0))
    # a [low, high] capacity is recorded by the most a chunk may hold; `options` keeps both
    return int(max(size) if isinstance(size, list | tuple) else size), overlap


def _read(built: Any, attribute: str, given: Any) -> Any:
    value = getattr(built, attribute, None) if built is not None and attribute else None
    return given if value is None else value


def library_chunks(splitter: str, options: Options, text: str) -> list[LibraryChunk]:
    """The chunks exactly as the library reported them (unverified)."""
    entry, adapter = adapter_for(splitter)
    entry.version()
    return _failing_as_config(splitter, lambda: adapter.split(text, options))


def _failing_as_config(splitter: str, call: Callable[[], T]) -> T:
    try:
        return call()
    except ConfigError:
        raise
    except Exception as exc:  # a library can fail in any way on any text
        raise ConfigError(
            f"{splitter} failed: {type(exc).__name__}: {exc}", key="splitter"
        ) from None


def library_pieces(splitter: str, options: Options, doc: str, text: str) -> list[Piece]:
    """Verified pieces of one document; ambiguous searched placements are warned about."""
    if not text:
        return []
    chunks, dropped = misplaced_blanks(text, library_chunks(splitter, options, text))
    if dropped:
        warnings.warn(
            f"document {doc!r}: skipped {dropped} whitespace-only chunk(s) {splitter} placed "
            "out of order (they hold no evidence; strip_whitespace = true leaves none)",
            SkippedWhitespace,
            stacklevel=2,
        )
    pieces = verify(doc, text, chunks)
    entry, adapter = adapter_for(splitter)
    if adapter.searched:
        warn_ambiguous(doc, entry.library, ambiguities(text, chunks))
    return pieces

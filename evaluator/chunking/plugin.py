"""The python splitter: a user's `module:function` cuts the text, spanlab checks the cuts.

The function returns (start, end) pairs; they are held to the same contract as the
built-in splitters, and any failure becomes a ConfigError on key `function`.
"""

from __future__ import annotations

import operator

from evaluator.chunking.pieces import Piece, check_pieces
from evaluator.chunking.spec import resolve_function
from labeler.core.errors import ConfigError


def python_pieces(text: str, function: str, size: int, overlap: int) -> list[Piece]:
    if not text:
        return []
    where = f"python splitter {function!r}"
    try:
        cut = resolve_function(function)
        pairs = [(operator.index(s), operator.index(e)) for s, e in cut(text, size, overlap)]
        pieces = [Piece(s, e) for s, e in sorted(pairs)]
        check_pieces(pieces, text)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc.message}", key="function", offset=exc.offset) from None
    except Exception as exc:  # the user's code can fail in any way
        message = f"{where} failed: {type(exc).__name__}: {exc}"
        raise ConfigError(message, key="function") from None
    return pieces

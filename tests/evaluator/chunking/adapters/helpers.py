"""Cutting the hard documents through a candidate spec, as a run would."""

from __future__ import annotations

import warnings
from typing import Any

from evaluator.chunking import Piece, SplitterSpec, split_text
from evaluator.chunking.adapters import AmbiguousPlacement

from .hard_docs import HARD_DOCS


def spec(splitter: str, **options: Any) -> SplitterSpec:
    return SplitterSpec(splitter, 0, options=options).validate("lib")


def cut(s: SplitterSpec, doc: str) -> list[Piece]:
    return split_text(s, HARD_DOCS[doc], doc)


def cut_all(s: SplitterSpec) -> dict[str, list[Piece]]:
    """Every hard document's verified pieces; ambiguity warnings are not errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AmbiguousPlacement)
        return {doc: cut(s, doc) for doc in HARD_DOCS}


def non_space_covered(pieces: list[Piece], text: str) -> bool:
    covered = [False] * len(text)
    for p in pieces:
        covered[p.start : p.end] = [True] * (p.end - p.start)
    return all(c or ch.isspace() for c, ch in zip(covered, text, strict=True))

"""Retrievers rank a candidate's chunks for each query (§6).

They share one shape — built over a candidate's chunks, asked for many queries at once,
answering ranked lists to `depth` — so `lexical`, `exact` and `chroma` are swapped by a
setting without the evaluation changing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk
from evaluator.metrics.base import Ranked


@dataclass(frozen=True)
class QueryInput:
    id: str
    """Query id."""
    text: str
    """The question."""
    vector: npt.NDArray[np.float32] | None = None
    """Its embedding, for vector retrievers."""


class Retriever(Protocol):
    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        """One ranked list per query, best first, at most `depth` long."""
        ...


def embedded_text(chunk: Chunk, texts: Mapping[str, str]) -> str:
    """What is embedded for a chunk: its prefix (heading, table header), then its text."""
    body = texts[chunk.doc][chunk.start : chunk.end]
    return f"{chunk.prefix}\n{body}" if chunk.prefix else body

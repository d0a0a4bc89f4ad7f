"""What every retriever shares: the query it is asked, the ranked answer, the text embedded.

These sit below both the retrievers and the measures (which read `Ranked` lists), so a
retriever never depends on metrics and metrics never on a particular retriever.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from evaluator.chunk import Chunk


@dataclass(frozen=True)
class Ranked:
    """One retrieved chunk; its rank is its position in the list plus one."""

    chunk: Chunk
    """The chunk the retriever returned."""
    score: float
    """Similarity, higher is closer (retrievers turn distances into similarities)."""


@dataclass(frozen=True)
class QueryInput:
    id: str
    """Query id."""
    text: str
    """The question."""
    vector: npt.NDArray[np.float32] | None = None
    """Its embedding, for vector retrievers."""
    docs: frozenset[str] | None = None
    """The documents it may retrieve from (a metadata filter, §24); None: every one."""
    filter: tuple[Mapping[str, Any], ...] = ()
    """The filters as declared (the query's own, the candidate's), every one to hold: for a
    search endpoint to apply itself."""


class Retriever(Protocol):
    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        """One ranked list per query, best first, at most `depth` long."""
        ...


def embedded_text(chunk: Chunk, texts: Mapping[str, str]) -> str:
    """What is embedded for a chunk: its prefix (heading, table header), then its text."""
    body = texts[chunk.doc][chunk.start : chunk.end]
    return f"{chunk.prefix}\n{body}" if chunk.prefix else body


def allowed_positions(chunks: Sequence[Chunk], docs: frozenset[str]) -> npt.NDArray[np.int64]:
    """Positions, ascending, of the chunks in `docs`: a scorer ranks only these (§24)."""
    return np.asarray([i for i, c in enumerate(chunks) if c.doc in docs], dtype=np.int64)


def top_positions(
    scores: npt.NDArray[np.floating],
    depth: int,
    docs: frozenset[str] | None,
    chunks: Sequence[Chunk],
) -> npt.NDArray[np.int64]:
    """The best `depth` positions by score, ties to the earlier one, among `docs` only."""
    if docs is None:
        return np.argsort(-scores, kind="stable")[:depth]
    allowed = allowed_positions(chunks, docs)
    return allowed[np.argsort(-scores[allowed], kind="stable")[:depth]]

"""A treatment's stages over a retriever's list (§19), in a stated order: rerank the top,
then diversify (MMR), then cap each source.

Each stage reorders; none drops a chunk, so the list still reaches `depth` and a chunk
pushed down is "crowded", not lost. MMR's similarities are cosines of the run's embedding;
a capped chunk (its document already holds `max_per_source` places above it) moves below
every uncapped one, in its order: capped, not merged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaluator.embedding.vectors import VectorSource
from evaluator.retrieval.base import QueryInput, Ranked, Retriever, embedded_text
from evaluator.retrieval.treatment import MMR, Treatment

Stage = Callable[[QueryInput, list[Ranked]], list[Ranked]]
"""One query's list in, the same chunks reordered out."""
Scores = Callable[[str, Sequence[str]], list[float]]
"""A reranker: the query and the chunks' texts in, one score per chunk out."""


@dataclass(frozen=True)
class Treated:
    """A retriever whose lists pass through the treatment's stages."""

    inner: Retriever
    """The retriever that ranks first."""
    stages: tuple[Stage, ...]
    """Applied in order to each query's list."""
    fetch: int
    """Ranks asked of `inner` at least (MMR's fetch, the reranker's top)."""

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        lists = self.inner.search(queries, max(depth, self.fetch))
        out = []
        for q, ranked in zip(queries, lists, strict=True):
            for stage in self.stages:
                ranked = stage(q, ranked)
            out.append(ranked[:depth])
        return out


def treated(
    inner: Retriever,
    treatment: Treatment,
    texts: Mapping[str, str],
    vectors: VectorSource | None,
    rerank: Scores | None = None,
) -> Retriever:
    """`inner` with the treatment's stages, or `inner` itself when it has none."""
    stages: list[Stage] = []
    if treatment.rerank is not None and rerank is not None:
        stages.append(Reranked(rerank, treatment.rerank.top, texts).stage)
    if treatment.mmr is not None and vectors is not None:
        stages.append(Diversified(treatment.mmr, vectors, texts).stage)
    if treatment.max_per_source is not None:
        cap = treatment.max_per_source
        stages.append(lambda q, ranked: capped(ranked, cap))
    if not stages:
        return inner
    fetch = max([treatment.mmr.fetch if treatment.mmr else 0,
                 treatment.rerank.top if treatment.rerank else 0])  # fmt: skip
    return Treated(inner, tuple(stages), fetch)


def capped(ranked: list[Ranked], cap: int) -> list[Ranked]:
    """At most `cap` chunks of a document before the capped ones, each group in order."""
    seen: dict[str, int] = {}
    kept: list[Ranked] = []
    moved: list[Ranked] = []
    for r in ranked:
        seen[r.chunk.doc] = seen.get(r.chunk.doc, 0) + 1
        (kept if seen[r.chunk.doc] <= cap else moved).append(r)
    return kept + moved


@dataclass(frozen=True)
class Reranked:
    """The top `top` ranks reordered by a reranker's scores (stable), the rest after."""

    scores: Scores
    """The reranking server, behind its cache."""
    top: int
    """Ranks sent."""
    texts: Mapping[str, str]
    """Document id -> canonical text."""

    def stage(self, q: QueryInput, ranked: list[Ranked]) -> list[Ranked]:
        head = ranked[: self.top]
        if not head:
            return ranked
        got = self.scores(q.text, [embedded_text(r.chunk, self.texts) for r in head])
        order = sorted(range(len(head)), key=lambda i: -got[i])
        return [Ranked(head[i].chunk, got[i]) for i in order] + ranked[self.top :]


class Diversified:
    """Maximal marginal relevance: each next pick maximises
    λ·cos(q, d) − (1 − λ)·max over picked s of cos(d, s), over the first `fetch` ranks."""

    def __init__(self, mmr: MMR, vectors: VectorSource, texts: Mapping[str, str]) -> None:
        self.mmr = mmr
        """λ and the ranks reordered."""
        self._vectors = vectors
        self._texts = texts

    def _embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        vecs, _ = self._vectors.embed(texts, "mmr", advance=lambda n: None)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return np.asarray(vecs / np.where(norms == 0, 1.0, norms), dtype=np.float32)

    def stage(self, q: QueryInput, ranked: list[Ranked]) -> list[Ranked]:
        head = ranked[: self.mmr.fetch]
        if len(head) < 2:
            return ranked
        docs = self._embed([embedded_text(r.chunk, self._texts) for r in head])
        query = self._embed([q.text])[0] if q.vector is None else self._embed_given(q.vector)
        order = mmr_order(docs @ query, docs @ docs.T, self.mmr.lam)
        return [head[i] for i in order] + ranked[self.mmr.fetch :]

    @staticmethod
    def _embed_given(vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        vec = np.asarray(vector, dtype=np.float32)
        return vec / (np.linalg.norm(vec) or 1.0)


def mmr_order(
    relevance: npt.NDArray[np.floating], similar: npt.NDArray[np.floating], lam: float
) -> list[int]:
    """Greedy MMR picks; ties go to the earlier rank."""
    left = list(range(len(relevance)))
    picked: list[int] = []
    while left:
        novelty = [max((similar[i, j] for j in picked), default=0.0) for i in left]
        gains = [lam * relevance[i] - (1 - lam) * n for i, n in zip(left, novelty, strict=True)]
        best = left[int(np.argmax(gains))]
        picked.append(best)
        left.remove(best)
    return picked

"""A reranking server through the common `/rerank` shape (§19): TEI, Infinity, vLLM, Jina,
Cohere. The embedding client's POST (deadlines, retries, bounds, redaction) carries it.

The request names the chunks both ways servers read them — `documents` (Cohere, Jina,
Infinity, vLLM) and `texts` (TEI) — and the answer may be TEI's list or Cohere's
`results`, each item an `index` and a `score` or `relevance_score`. Every index must come
back once and every score be finite, or nothing is kept. Scores go through the embedding
cache as one-wide vectors keyed by server, model, query and chunk text, so a chunk is
scored once per query and model, across candidates and runs.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from evaluator.embedding.base import Progress, Vectors
from evaluator.embedding.http import Endpoint, post_json
from evaluator.retrieval.treatment import Rerank, public
from labeler.core.errors import ConfigError

if TYPE_CHECKING:
    from labeler.core.project.cache_place import CacheWhere

KEY_ENV = "SPANLAB_RERANK_KEY"
"""The variable holding the reranker's bearer key, if it needs one."""


class RerankModel:
    """The reranker as an embedder of (query, chunk) pairs into one score, for the cache."""

    def __init__(self, rerank: Rerank, *, timeout: float = 30.0, budget: float = 60.0,
                 retries: int = 4) -> None:  # fmt: skip
        self.rerank = rerank
        """Where and which model."""
        self.endpoint = Endpoint(rerank.url, os.environ.get(KEY_ENV, ""), timeout, retries,
                                 budget=budget, role="rerank")  # fmt: skip
        """The POST's deadlines; holds the key, which nothing writes out."""

    @property
    def fingerprint(self) -> str:
        return f"rerank:{public(self.rerank.url, 'rerank.url')}#{self.rerank.model}"

    @property
    def dim(self) -> int:
        return 1

    @property
    def model_id(self) -> str:
        return self.fingerprint

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        """`texts` are `pair` keys; one request per distinct query among them."""
        pairs = [json.loads(t) for t in texts]
        out = np.empty((len(texts), 1), dtype=np.float32)
        for query in dict.fromkeys(q for q, _ in pairs):
            where = [i for i, (q, _) in enumerate(pairs) if q == query]
            scores = self.score(query, [pairs[i][1] for i in where])
            out[where, 0] = scores
        return out

    def score(self, query: str, docs: Sequence[str]) -> list[float]:
        payload = {"model": self.rerank.model, "query": query, "documents": list(docs),
                   "texts": list(docs), "return_documents": False}  # fmt: skip
        return scores(post_json(self.endpoint, payload), len(docs), self.endpoint.url)


def pair(query: str, doc: str) -> str:
    """The cache's text for a (query, chunk) pair."""
    return json.dumps([query, doc], ensure_ascii=False)


def scores(answer: Any, n: int, url: str) -> list[float]:
    """One finite score per document, in the order sent, or a ConfigError naming the URL."""
    items = answer.get("results") if isinstance(answer, dict) else answer
    if not isinstance(items, list) or len(items) != n:
        got = len(items) if isinstance(items, list) else "no"
        raise _refused(url, f"{got} scores for {n} texts")
    found: dict[int, float] = {}
    for item in items:
        index, score = _item(item, url)
        if index in found or not 0 <= index < n:
            listed = [i.get("index") if isinstance(i, dict) else None for i in items]
            raise _refused(url, f"'index' values {listed[:20]}, not 0..{n - 1} once each")
        found[index] = score
    return [found[i] for i in range(n)]


def _item(item: Any, url: str) -> tuple[int, float]:
    index = item.get("index") if isinstance(item, dict) else None
    score = item.get("relevance_score", item.get("score")) if isinstance(item, dict) else None
    if isinstance(index, bool) or not isinstance(index, int):
        raise _refused(url, "an item without a whole-number 'index'")
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise _refused(url, "an item without a numeric 'score' or 'relevance_score'")
    if not math.isfinite(score) or abs(score) > 3.0e38:
        raise _refused(url, f"a score that is not finite (item {index})")
    return index, float(score)


def _refused(url: str, why: str) -> ConfigError:
    return ConfigError(f"rerank server {url} answered {why}", key="rerank")


def cached_scorer(rerank: Rerank, cache_path: CacheWhere) -> Any:
    """`score(query, texts)` through the embedding cache at `cache_path` (None: memory): a
    server's, or a cross-encoder file's run in process (`model_path`); a team's scores, like
    its vectors, come from one's own file and the leads' (§21)."""
    from evaluator.embedding.accounts import open_cache
    from evaluator.embedding.cache import CachedEmbedder

    model: Any = RerankModel(rerank)
    if rerank.model_path:
        from evaluator.retrieval.cross_encoder import CrossEncoder

        model = CrossEncoder(rerank.model_path, rerank.tokenizer, rerank.max_tokens)
    cached = CachedEmbedder(model, open_cache(cache_path))

    def score(query: str, texts: Sequence[str]) -> list[float]:
        return [float(v) for v in cached.embed([pair(query, t) for t in texts])[:, 0]]

    return score

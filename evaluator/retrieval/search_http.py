"""`retriever = "http"` (§19): the team's own search endpoint ranks each query, so a
chunker is judged on their Elasticsearch, Vespa or pgvector service.

spanlab POSTs `{"query": text, "id": query id, "k": depth}` (with `"filter": [{"path":
[globs], FIELD: [values]}, …]` under metadata filters, every one to hold, §24) and takes back
`{"ranked": [item, …]}` (or the list alone), items as `evaluator.retrieval.items` reads
them. The embedding client's POST carries it (deadlines, retries, bounds, redaction; the
bearer key from SPANLAB_SEARCH_KEY). An answer with more items than asked, or an item that
is not one of the candidate's chunks, is refused naming the URL, the query and the item.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from evaluator.embedding.http import Endpoint, post_json
from evaluator.retrieval.base import QueryInput, Ranked
from evaluator.retrieval.items import ONCE, ChunkLookup, Where, repeated
from evaluator.retrieval.treatment import public
from labeler.core.errors import ConfigError

KEY_ENV = "SPANLAB_SEARCH_KEY"
"""The variable holding the search endpoint's bearer key, if it needs one."""


class HttpRetriever:
    def __init__(self, url: str, lookup: ChunkLookup, *, timeout: float = 30.0,
                 budget: float = 60.0, retries: int = 4) -> None:  # fmt: skip
        self.lookup = lookup
        """The candidate's chunks, which every item must be."""
        self.endpoint = Endpoint(url, os.environ.get(KEY_ENV, ""), timeout, retries,
                                 budget=budget, role="search")  # fmt: skip
        """Where queries go; holds the key, which nothing writes out."""
        self.shown = public(url)
        """The URL as errors show it."""

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        return [self._one(q, depth) for q in queries]

    def _one(self, q: QueryInput, depth: int) -> list[Ranked]:
        asked = {"query": q.text, "id": q.id, "k": depth}
        if q.filter:  # §24: the service applies the filters as the team's does
            asked["filter"] = [dict(f) for f in q.filter]
        answer = post_json(self.endpoint, asked)
        items = answer.get("ranked") if isinstance(answer, dict) else answer
        where = Where(self.shown)
        if not isinstance(items, list):
            raise self._refuse(where.refuse("no 'ranked' list"), q)
        if len(items) > depth:
            raise self._refuse(where.refuse(f"{len(items)} items for k = {depth}"), q)
        out = []
        for n, item in enumerate(items, 1):
            try:
                out.append(Ranked(self.lookup.item(item, where), _score(item, n, len(items))))
            except ConfigError as exc:
                raise self._refuse(exc, q, n) from None
        if (again := repeated(out)) is not None:
            first, n = again
            said = f"chunk {out[n - 1].chunk.id} again (first as item {first})"
            raise self._refuse(where.refuse(f"{said}: {ONCE}"), q, n)
        return out

    def _refuse(self, exc: ConfigError, q: QueryInput, item: int = 0) -> ConfigError:
        at = f", item {item}" if item else ""
        message = f"search server {self.shown} answered query {q.id}{at}: {exc.message}"
        return replace(exc, message=self.endpoint.redact(message)[:400], file=None,
                       key="search")  # fmt: skip


def _score(item: Any, rank: int, n: int) -> float:
    score = item.get("score", n - rank + 1) if isinstance(item, dict) else None
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise ConfigError("a score that is not a finite number")
    return float(score)

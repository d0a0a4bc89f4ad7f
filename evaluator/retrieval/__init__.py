"""Retrievers rank a candidate's chunks for each query (§6), looked up in one table.

They share one shape — built over a candidate's chunks, asked for many queries at once,
answering ranked lists to `depth` — so `lexical`, `exact`, `chroma`, `hybrid`, and rankings
from outside (`ranked`, `http`, §19) are swapped by a setting without the evaluation
changing. Adding one is one builder and one table entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evaluator.embedding.vectors import VectorSource
from evaluator.retrieval.base import QueryInput, Ranked, Retriever, embedded_text
from evaluator.retrieval.lexical import Tokenizer
from evaluator.retrieval.request import Built, IndexRequest
from labeler.core.display import shown

__all__ = [
    "RETRIEVERS",
    "Built",
    "IndexRequest",
    "QueryInput",
    "Ranked",
    "Retriever",
    "RetrieverKind",
    "build_retriever",
    "embedded_text",
]


@dataclass(frozen=True)
class RetrieverKind:
    """One entry of the table: what a retriever needs and how it is built."""

    name: str
    """Its name in `retriever = …`."""
    uses_vectors: bool
    """Whether queries and chunks are embedded for it."""
    build: Callable[[IndexRequest], Built]
    """Index the chunks."""


def _source(request: IndexRequest) -> VectorSource:
    if request.vectors is None:
        raise ValueError(f"retriever for {request.candidate!r} needs a vector source")
    return request.vectors


def _tokenizer(request: IndexRequest) -> Tokenizer:
    return Tokenizer(request.treatment.stopwords, request.treatment.stem)


def _lexical(request: IndexRequest) -> Built:
    from evaluator.retrieval.lexical import LexicalRetriever

    return Built(LexicalRetriever(request.chunks, request.texts, _tokenizer(request)), warm=False)


def _hybrid(request: IndexRequest) -> Built:
    from evaluator.retrieval.hybrid import HybridRetriever

    texts = [embedded_text(c, request.texts) for c in request.chunks]
    vecs, embedded = _source(request).embed(texts, request.candidate)
    warm = embedded.get("computed", 0) == 0 and embedded.get("cached", 0) > 0
    fusion = request.treatment.fusion
    retriever = HybridRetriever(request.chunks, request.texts, vecs, fusion, _tokenizer(request))
    extra = {"fusion": {"method": "rrf", "k": fusion.k, "weights": list(fusion.weights)},
             "bm25": {"library": f"bm25s {_version('bm25s')}", "k1": 1.5, "b": 0.75,
                      "method": "lucene"}, "dense": "exact"}  # fmt: skip
    return Built(retriever, warm, embedded, extra)


def _ranked(request: IndexRequest) -> Built:
    from evaluator.retrieval.items import ChunkLookup
    from evaluator.retrieval.ranked import RankedRetriever, read_rankings

    lookup = ChunkLookup(request.chunks, request.texts, request.chunk_ids, request.sent_units)
    path = request.treatment.ranked or ""
    skip = request.treatment.ranked_skip_bad
    rankings = read_rankings(path, lookup, request.queries, request.depth, skip)
    extra: dict[str, Any] = {"ranked_file": path, "queries_missing": rankings.missing}
    if lookup.located["normalised"]:  # §24: the share found only with whitespace ignored
        from evaluator.retrieval.locate import WHITESPACE_BLIND

        extra["text_located"] = {**lookup.located, "rule": WHITESPACE_BLIND}
    if skip:  # counted even when none was bad: the run says skipping was on
        extra["ranked_skipped"] = rankings.skipped
        extra["ranked_skipped_lines"] = [{"line": e.line, "message": shown(e.message)}
                                         for e in rankings.named]  # fmt: skip
    return Built(RankedRetriever(rankings), warm=False, extra=extra)


def _http(request: IndexRequest) -> Built:
    from evaluator.retrieval.items import ChunkLookup
    from evaluator.retrieval.search_http import HttpRetriever

    lookup = ChunkLookup(request.chunks, request.texts, request.chunk_ids, request.sent_units)
    retriever = HttpRetriever(request.treatment.url or "", lookup)
    return Built(retriever, warm=False, extra={"url": retriever.shown})


def _version(dist: str) -> str:
    from importlib import metadata

    return metadata.version(dist)


def _exact(request: IndexRequest) -> Built:
    from evaluator.retrieval.exact import ExactRetriever

    texts = [embedded_text(c, request.texts) for c in request.chunks]
    vecs, embedded = _source(request).embed(texts, request.candidate)
    # No index to keep: warm means every vector came from the cache.
    warm = embedded.get("computed", 0) == 0 and embedded.get("cached", 0) > 0
    return Built(ExactRetriever(request.chunks, vecs), warm, embedded)


def _chroma(request: IndexRequest) -> Built:
    from evaluator.retrieval.chroma import open_chroma_retriever

    retriever, extra, embedded = open_chroma_retriever(request, _source(request))
    return Built(retriever, bool(extra.get("reused")), embedded, extra)


RETRIEVERS: dict[str, RetrieverKind] = {
    "chroma": RetrieverKind("chroma", True, _chroma),
    "exact": RetrieverKind("exact", True, _exact),
    "lexical": RetrieverKind("lexical", False, _lexical),
    "hybrid": RetrieverKind("hybrid", True, _hybrid),
    "ranked": RetrieverKind("ranked", False, _ranked),
    "http": RetrieverKind("http", False, _http),
}
"""Every retriever by name, in the order errors and help list them."""


def build_retriever(kind: str, request: IndexRequest) -> Built:
    """Index one candidate with the retriever named `kind` (validated with the settings)."""
    return RETRIEVERS[kind].build(request)

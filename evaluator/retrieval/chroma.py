"""One Chroma collection per candidate, embedded or on a `chroma run` server (§5, §6).

The collection's name is a fingerprint of corpus, splitter and embedding, so an unchanged
candidate finds its index again. A collection is marked complete only after its last
chunk is in: an interrupted build is found incomplete next time and rebuilt, never used.
"""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any
from urllib.parse import ParseResult, urlparse

import numpy as np

from evaluator.chunk import Chunk
from evaluator.embedding.vectors import VectorSource
from evaluator.retrieval.base import QueryInput, Ranked, embedded_text
from evaluator.retrieval.request import IndexRequest
from labeler.core.errors import ConfigError

HNSW = {"space": "cosine", "ef_construction": 200, "max_neighbors": 16, "ef_search": 128}
"""Fixed for every candidate and recorded in the run, so ANN noise is one held variable."""
COMPLETE = "spanlab_complete"
CONNECT_TIMEOUT = 5.0


def collection_name(corpus_hash: str, splitter_fingerprint: str, embedding_fingerprint: str) -> str:
    payload = "\x1f".join([corpus_hash, splitter_fingerprint, embedding_fingerprint])
    return "spanlab-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:40]


def parse_url(url: str) -> tuple[ParseResult, int]:
    """`http://host:port` parsed, with its port; anything else is a clear error."""
    try:
        parsed = urlparse(url)
        port = parsed.port or (443 if parsed.scheme == "https" else 8000)
    except ValueError as exc:  # "Invalid IPv6 URL", a port out of range or not a number
        raise ConfigError(f"not a Chroma URL: {url!r} ({exc})", key="chroma_url") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(
            f"not a Chroma URL: {url!r} (expected http://host:port)", key="chroma_url"
        )
    return parsed, port


def connect(url: str | None, path: str | None) -> Any:
    """A Chroma client: HTTP when `url` is given (checked within 5 s), else embedded."""
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    if url is None:
        return chromadb.PersistentClient(path=path or ".spanlab/chroma", settings=settings)
    parsed, port = parse_url(url)
    heartbeat = f"{url.rstrip('/')}/api/v2/heartbeat"
    try:
        with urllib.request.urlopen(heartbeat, timeout=CONNECT_TIMEOUT) as response:
            response.read()
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(
            f"cannot reach the Chroma server at {url}: {reason}",
            key="chroma_url",
            hint="start one with `chroma run --path DIR --port PORT`, or drop --chroma-url",
        ) from None
    return chromadb.HttpClient(
        host=parsed.hostname or "", port=port, ssl=parsed.scheme == "https", settings=settings
    )


class ChromaRetriever:
    def __init__(self, collection: Any, chunks: Sequence[Chunk]) -> None:
        self.collection = collection
        """The candidate's complete collection."""
        self.by_id = {c.id: c for c in chunks}
        """Chunk id -> chunk, to turn Chroma's answers back into offsets."""

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        if not queries:
            return []
        vectors = np.stack([np.asarray(q.vector, dtype=np.float32) for q in queries])
        n = min(depth, len(self.by_id))
        answer = self.collection.query(query_embeddings=vectors, n_results=n, include=["distances"])
        return [
            [Ranked(self.by_id[i], 1.0 - float(d)) for i, d in zip(ids, dists, strict=True)]
            for ids, dists in zip(answer["ids"], answer["distances"], strict=True)
        ]


def chunks_digest(chunks: Sequence[Chunk]) -> str:
    """Which chunks an index holds: reuse needs the very same ids, not just as many."""
    ids = "\n".join(sorted(c.id for c in chunks))
    return hashlib.sha256(ids.encode("utf-8")).hexdigest()[:32]


def ensure_collection(
    client: Any,
    name: str,
    chunks: Sequence[Chunk],
    vectors: Any,
    *,
    candidate: str,
    batch: int | None = None,
) -> tuple[Any, bool]:
    """Return (collection, reused). `vectors()` is called only when (re)building."""
    from chromadb.errors import NotFoundError

    try:
        existing = client.get_collection(name, embedding_function=None)
    except (NotFoundError, ValueError):
        existing = None
    digest = chunks_digest(chunks)
    if existing is not None:
        meta = existing.metadata or {}
        if meta.get(COMPLETE) and meta.get("chunks_digest") == digest:
            return existing, True
        client.delete_collection(name)
    collection = client.create_collection(
        name,
        configuration={"hnsw": HNSW},
        metadata={
            COMPLETE: False,
            "candidate": candidate,
            "chunks": len(chunks),
            "chunks_digest": digest,
        },
        embedding_function=None,
    )
    matrix = vectors()
    batch = batch or max(1, min(4096, int(client.get_max_batch_size())))
    for lo in range(0, len(chunks), batch):
        part = chunks[lo : lo + batch]
        collection.add(
            ids=[c.id for c in part],
            embeddings=matrix[lo : lo + batch],
            metadatas=[{"doc": c.doc, "start": c.start, "end": c.end, "chunk_id": c.id}
                       for c in part],
        )  # fmt: skip
    # Only now, with every chunk in, is the collection usable.
    collection.modify(
        metadata={COMPLETE: True, "candidate": candidate, "chunks": len(chunks),
                  "chunks_digest": digest}
    )  # fmt: skip
    return collection, False


def open_chroma_retriever(
    request: IndexRequest, vectors: VectorSource
) -> tuple[ChromaRetriever, dict[str, Any], dict[str, int]]:
    """The candidate's complete collection (reused, or built now) as a retriever."""
    path = str(request.chroma_path) if request.chroma_path else None
    client = connect(request.chroma_url, path)
    name = collection_name(
        request.corpus_hash, request.splitter_fingerprint, vectors.embedder.fingerprint
    )
    embedded: dict[str, int] = {}
    chunks = request.chunks

    def compute() -> Any:
        texts = [embedded_text(c, request.texts) for c in chunks]
        matrix, counts = vectors.embed(texts, request.candidate)
        embedded.update(counts)
        return matrix

    collection, reused = ensure_collection(
        client, name, chunks, compute, candidate=request.candidate
    )
    extra = {
        "collection": name,
        "reused": reused,
        "hnsw": HNSW,
        "server": request.chroma_url,
    }
    return ChromaRetriever(collection, chunks), extra, embedded

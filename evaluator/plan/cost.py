"""What indexing a candidate would embed: its distinct chunk texts, how many the cache holds,
and the time the rest takes at the throughput the cache last measured (§17).

Only the bundled model is identified (its fingerprint is two file hashes): a server's or a
library's model would have to be loaded or called, which a plan never does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from evaluator.candidates import Candidate, CandidatesFile, Settings
from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.embedding.probe import CacheProbe
from evaluator.plan.model import EmbeddingCost
from evaluator.retrieval import RETRIEVERS
from evaluator.retrieval.base import embedded_text

_BATCH = 4096
"""Chunks whose texts are in hand at once."""


def model_identity(embedding: str, hashed: bool = True) -> tuple[str, int] | None:
    """The bundled model's fingerprint and width; None for any other model (not loaded).
    Unless `hashed`, the files are only required (the fingerprint, two file hashes, is a
    cache key: with no cache to look into a plan spares the 23 MB hash, §17)."""
    if embedding != "minilm":
        return None
    from evaluator.embedding import minilm

    if not hashed:
        minilm.MiniLMEmbedder.require_packages()
        return "", minilm.DIM
    model = minilm.MiniLMEmbedder.from_packages()  # hashes two files; loads on first use
    return model.fingerprint, model.dim


def embedding_costs(
    cfile: CandidatesFile,
    tables: Mapping[str, Sequence[Chunk]],
    texts: Mapping[str, str],
    cache_path: Path | None,
) -> tuple[dict[str, EmbeddingCost | None], int | None]:
    """Per candidate its cost (None: the retriever embeds nothing), and the model's width."""
    embedding = [c for c in cfile.candidates if uses_vectors(c, cfile.settings)]
    if not embedding:
        return {c.name: None for c in cfile.candidates}, None
    probe = CacheProbe(cache_path if cfile.settings.embedding == "minilm" else None)
    identity = model_identity(cfile.settings.embedding, hashed=probe.found)
    costs: dict[str, EmbeddingCost | None] = {c.name: None for c in cfile.candidates}
    try:
        rate = probe.texts_per_second(identity[0]) if identity else None
        for cand in embedding:
            distinct, cached = _distinct_cached(probe, identity, tables[cand.name], texts)
            costs[cand.name] = EmbeddingCost(distinct, cached, rate)
    finally:
        probe.close()
    return costs, identity[1] if identity else None


def _distinct_cached(
    probe: CacheProbe,
    identity: tuple[str, int] | None,
    chunks: Sequence[Chunk],
    texts: Mapping[str, str],
) -> tuple[int, int | None]:
    """How many distinct texts the chunks embed, and how many the cache holds (None: no
    model to look for), a batch of texts at a time: a set of their digests is kept, not of
    the texts (§6: memory does not grow by the corpus's text)."""
    seen: set[bytes] = set()
    cached: int | None = 0 if identity else None
    for lo in range(0, len(chunks), _BATCH):
        batch: dict[bytes, str] = {}
        for text in _texts(chunks, texts, lo, lo + _BATCH):
            key = hashlib.sha256(text.encode("utf-8")).digest()
            if key not in seen:
                seen.add(key)
                batch[key] = text
        if identity and batch:
            cached = (cached or 0) + probe.cached(identity[0], list(batch.values()))
    return len(seen), cached


def _texts(chunks: Sequence[Chunk], texts: Mapping[str, str], lo: int, hi: int) -> list[str]:
    """The embedded texts of chunks [lo, hi): read from a table's columns when the chunks
    are a table (a `Chunk` each, its id hashed, cost a third of a 12 MB plan)."""
    if not isinstance(chunks, ChunkTable):
        return [embedded_text(c, texts) for c in chunks[lo:hi]]
    docs, prefixes = chunks.docs, chunks.prefixes
    rows = zip(range(lo, min(hi, len(chunks))), chunks.doc_of[lo:hi].tolist(),
               chunks.starts[lo:hi].tolist(), chunks.ends[lo:hi].tolist(), strict=True)  # fmt: skip
    return [f"{p}\n{texts[docs[d]][s:e]}" if (p := prefixes.get(i)) else texts[docs[d]][s:e]
            for i, d, s, e in rows]  # fmt: skip


def uses_vectors(cand: Candidate, settings: Settings) -> bool:
    """Whether the candidate's retriever or treatment (MMR) embeds its chunks."""
    return RETRIEVERS[cand.retriever(settings)].uses_vectors or cand.treatment.mmr is not None

"""What indexing a candidate would embed: its distinct chunk texts, how many the cache holds,
and the time the rest takes at the throughput the cache last measured (§17).

Only the bundled model is identified (its fingerprint is two file hashes): a server's or a
library's model would have to be loaded or called, which a plan never does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from evaluator.candidates import Candidate, CandidatesFile, Settings
from evaluator.chunk import Chunk
from evaluator.embedding.probe import CacheProbe
from evaluator.plan.model import EmbeddingCost
from evaluator.retrieval import RETRIEVERS
from evaluator.retrieval.base import embedded_text


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
            chunk_texts = list({embedded_text(c, texts) for c in tables[cand.name]})
            cached = probe.cached(identity[0], chunk_texts) if identity else None
            costs[cand.name] = EmbeddingCost(len(chunk_texts), cached, rate)
    finally:
        probe.close()
    return costs, identity[1] if identity else None


def uses_vectors(cand: Candidate, settings: Settings) -> bool:
    """Whether the candidate's retriever or treatment (MMR) embeds its chunks."""
    return RETRIEVERS[cand.retriever(settings)].uses_vectors or cand.treatment.mmr is not None

"""A candidate's retrieval as the team runs it (§19): its retriever kind, told its metadata
filter (§24), and the rerank, MMR and cap stages over what that retriever ranks, recorded
for run.json's `index`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.candidates import Candidate, Settings
from evaluator.embedding.vectors import VectorSource
from evaluator.retrieval import RETRIEVERS
from evaluator.retrieval.base import Retriever
from evaluator.retrieval.filters import Filtered, allowed_docs
from evaluator.retrieval.rerank import cached_scorer
from evaluator.retrieval.stages import treated
from labeler.core.project.cache_place import CacheWhere


def uses_vectors(settings: Settings, cand: Candidate) -> bool:
    """Whether the candidate's retriever or treatment (MMR) needs embeddings."""
    kind = cand.retriever(settings)
    return RETRIEVERS[kind].uses_vectors or cand.treatment.mmr is not None


def with_treatment(
    texts: Mapping[str, str],
    vectors: VectorSource,
    cache_path: CacheWhere,
    cand: Candidate,
    retriever: Retriever,
) -> Retriever:
    """The retriever with the candidate's rerank, MMR and cap stages (§19)."""
    rerank = cand.treatment.rerank
    scorer = None if rerank is None else cached_scorer(rerank, cache_path)
    return treated(retriever, cand.treatment, texts, vectors, scorer)


def treatment_record(settings: Settings, cand: Candidate) -> dict[str, Any]:
    """The candidate's retriever and treatment as run.json's `index` records them."""
    record = cand.treatment.record()
    if not record:
        return {}
    return {"retriever": cand.retriever(settings), "treatment": record,
            "treatment_fingerprint": cand.treatment.fingerprint()}  # fmt: skip


def filter_docs(texts: Mapping[str, str], cand: Candidate) -> frozenset[str] | None:
    """The documents the candidate's filter lets through (None: no filter); a field no
    document has, or a filter that lets none through, is a ConfigError naming the key."""
    f = cand.treatment.filter
    return None if f is None else allowed_docs(f, texts, f"candidate {cand.name!r}", "filter")


def filtered(
    texts: Mapping[str, str], cand: Candidate, retriever: Retriever, scoped: bool = False
) -> Retriever:
    """The retriever told the candidate's filter, or itself when neither it nor any query
    (`scoped`) has one."""
    docs, f = filter_docs(texts, cand), cand.treatment.filter
    if docs is None and not scoped:
        return retriever
    return Filtered(retriever, docs, None if f is None else f.record())

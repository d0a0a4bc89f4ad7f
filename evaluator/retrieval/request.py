"""What a retriever is asked to index, and what building it hands back.

Apart from the table in `evaluator.retrieval`, so each retriever module can name these
types without importing the table that imports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluator.chunk import Chunk
from evaluator.embedding.vectors import VectorSource
from evaluator.retrieval.base import QueryInput, Retriever
from evaluator.retrieval.treatment import Treatment


@dataclass(frozen=True)
class IndexRequest:
    """Everything a retriever may need to index one candidate's chunks."""

    candidate: str
    """The candidate's name (recorded on its Chroma collection)."""
    splitter_fingerprint: str
    """How the chunks were cut: part of the collection's name."""
    corpus_hash: str
    """Which corpus they were cut from: part of the collection's name."""
    chunks: Sequence[Chunk]
    """Every chunk of the candidate."""
    texts: Mapping[str, str]
    """Document id -> canonical text."""
    vectors: VectorSource | None
    """Embeds chunk texts; None for a retriever without embeddings."""
    chroma_url: str | None = None
    """A Chroma server, or None for the embedded client."""
    chroma_path: Path | None = None
    """The embedded client's folder."""
    chroma_timeout: float | None = None
    """Seconds one call to a Chroma server may take (None: the default, 8 s)."""
    doc_hashes: Mapping[str, str] = field(default_factory=dict)
    """Document id -> doc hash: part of each chunk's Chroma id, so an unchanged document's
    chunks keep their ids across corpus versions."""
    treatment: Treatment = field(default_factory=Treatment)
    """The candidate's retrieval settings (§19): scorer options, fusion, a ranked file."""
    queries: Sequence[QueryInput] = ()
    """The queries of the run, which a ranked file may name by id or text."""
    depth: int = 50
    """Ranks searched: a ranked file may hold no more per query."""
    chunk_ids: Mapping[str, tuple[str, int, int]] = field(default_factory=dict)
    """A chunk file's own ids -> (doc, start, end) of those chunks (`splitter = "chunks"`):
    the ids a ranked file or a search endpoint may name the team's chunks by."""
    sent_units: Mapping[str, Chunk] = field(default_factory=dict)
    """Chunk id -> the context unit sent for it (§18, §24), for a ranked file or a search
    endpoint that names a hit by the text a framework sent (a sentence window)."""


@dataclass(frozen=True)
class Built:
    """A retriever ready to search, and what building it cost."""

    retriever: Retriever
    """Searches the candidate's chunks."""
    warm: bool
    """The index was reused, or every vector came from the cache."""
    embedded: dict[str, int] = field(default_factory=dict)
    """Texts embedded (computed) and served from the cache (cached)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Retriever details for the run: collection name, HNSW settings."""

"""Embedding models by name, and the cache that makes each text cost one embedding (§6).

`load_embedder` is the single place a configured name becomes a model, so the CLI, the
evaluator and the TUI agree on names and errors; the optional back ends load lazily.
"""

from __future__ import annotations

from evaluator.embedding.base import Embedder, Progress, Vectors, l2_normalize
from evaluator.embedding.cache import CachedEmbedder, CacheStats, EmbeddingCache
from evaluator.embedding.minilm import MiniLMEmbedder
from labeler.core.errors import ConfigError

DEFAULT_EMBEDDER = "minilm"
NAMES = (
    "minilm",
    "chroma:default",
    "chroma:<function>[/<model>]",
    "sentence-transformers:<name>",
    "openai:<model> (any OpenAI-compatible server: SPANLAB_EMBEDDING_URL)",
)
"""What `embedding = …` accepts, for error messages and help."""

__all__ = [
    "DEFAULT_EMBEDDER",
    "CacheStats",
    "CachedEmbedder",
    "Embedder",
    "EmbeddingCache",
    "MiniLMEmbedder",
    "Progress",
    "Vectors",
    "l2_normalize",
    "load_embedder",
]


def load_embedder(name: str = DEFAULT_EMBEDDER) -> Embedder:
    """The embedder a configuration names; a ConfigError (key `embedding`) for anything else."""
    kind, _, rest = name.partition(":")
    if name == "minilm":
        return MiniLMEmbedder.from_packages()
    if kind == "chroma" and rest:
        from evaluator.embedding.chroma import chroma_embedder

        return chroma_embedder(rest)
    if kind == "sentence-transformers" and rest:
        from evaluator.embedding.sbert import SentenceTransformersEmbedder

        return SentenceTransformersEmbedder(rest)
    if kind == "openai" and rest:
        from evaluator.embedding.server import OpenAIEmbedder

        return OpenAIEmbedder(rest)
    raise ConfigError(
        f"unknown embedding model {name!r}", key="embedding", hint="one of: " + ", ".join(NAMES)
    )

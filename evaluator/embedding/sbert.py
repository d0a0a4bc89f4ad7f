"""sentence-transformers as an optional extra (`sentence-transformers:<name or path>`).

It brings PyTorch (and a GPU, where there is one), so it is imported only when asked
for. A local model folder is fingerprinted by its weight and tokenizer hashes; a hub
name can only be fingerprinted by name, and the fingerprint says so.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.embedding.base import Progress, Vectors, file_sha256, l2_normalize
from labeler.core.errors import ConfigError

INSTALL = (
    "pip install sentence-transformers torch==2.13.0"
    "  (in a checkout: pip install -e '.[sentence-transformers]')"
)
BATCH_SIZE = 32
_HASHED_FILES = ("model.safetensors", "pytorch_model.bin", "tokenizer.json", "vocab.txt")
"""Files of a local model folder whose bytes decide its vectors."""


def import_sentence_transformers() -> Any:
    try:
        return importlib.import_module("sentence_transformers")
    except ImportError:
        raise ConfigError(
            "the sentence-transformers embedder needs the optional extra",
            key="embedding",
            hint=f"run `{INSTALL}`",
        ) from None


class SentenceTransformersEmbedder:
    """Any sentence-transformers model; vectors normalised by the library, then checked by us."""

    def __init__(self, name_or_path: str) -> None:
        module = import_sentence_transformers()
        self.name_or_path = name_or_path
        """Hub name or local folder, as the user wrote it."""
        self.model = module.SentenceTransformer(name_or_path)
        """The loaded model."""
        self._dim = int(self.model.get_sentence_embedding_dimension())
        self._fingerprint = (
            f"sentence-transformers:{name_or_path} {_content_hashes(Path(name_or_path))}"
            f" max_seq_length={self.model.max_seq_length} normalize=l2"
        )

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_id(self) -> str:
        return f"sentence-transformers:{self.name_or_path}"

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        parts = [np.zeros((0, self._dim), dtype=np.float32)]
        for start in range(0, len(texts), BATCH_SIZE):
            batch = list(texts[start : start + BATCH_SIZE])
            encoded = self.model.encode(batch, batch_size=BATCH_SIZE, normalize_embeddings=True)
            parts.append(l2_normalize(np.asarray(encoded)))
            if progress is not None:
                progress(len(batch))
        return np.concatenate(parts)


def _content_hashes(folder: Path) -> str:
    if not folder.is_dir():
        return "weights=unpinned(hub)"
    present = [name for name in _HASHED_FILES if (folder / name).is_file()]
    return " ".join(f"{name}={file_sha256(folder / name)}" for name in present)

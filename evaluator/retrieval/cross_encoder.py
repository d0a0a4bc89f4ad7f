"""A cross-encoder run in process (§19): `rerank = { model_path = "…" }`, an ONNX file the
user names, on onnxruntime, with its own `tokenizer.json` read by the tokenizers library.

No package installs a cross-encoder's weights offline (see the docs), so the model is a
file of the user's, exported as Hugging Face exports one (`optimum-cli export onnx` of
cross-encoder/ms-marco-MiniLM-L-6-v2): inputs `input_ids` and, when declared,
`attention_mask` and `token_type_ids`; the first output holds one logit a pair (its last
column when it holds several). Both files are read once, never through a link, bounded,
and hashed into the fingerprint, so the score cache keys on the very weights that ran.
"""

from __future__ import annotations

import hashlib
import math
import os
import stat
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evaluator.embedding.base import Progress, Vectors
from labeler.core.errors import ConfigError
from labeler.core.typed import Refusal

MAX_MODEL_BYTES = 2 << 30
"""Largest model file read (a MiniLM cross-encoder is about 90 MB)."""
MAX_TOKENIZER_BYTES = 64 << 20
"""Largest tokenizer.json read."""
BATCH = 16
"""Pairs per onnxruntime call."""


@dataclass(frozen=True)
class _Place:
    """A model file, as the shared bounds refuse it."""

    path: str
    """The file."""
    key: str
    """`rerank.model_path` or `rerank.tokenizer`."""

    def at(self, key: str) -> _Place:
        return self

    def refuse(self, refusal: Refusal) -> ConfigError:
        return ConfigError(f"{self.key} {refusal.message}", file=self.path, key=self.key)


def check_file(path: str, key: str) -> None:
    """Refuse, naming `key`, a model file that is missing, a link or not a regular file;
    nothing is opened (a FIFO would block)."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise ConfigError(f"{key}: cannot read it: {exc.strerror}", file=path, key=key) from None
    if stat.S_ISLNK(info.st_mode):
        message = f"{key} is a symbolic link, which is not followed: name the file itself"
        raise ConfigError(message, file=path, key=key)
    if not stat.S_ISREG(info.st_mode):
        from labeler.core.files.reading import kind_of

        message = f"{key} is {kind_of(info.st_mode)}, not a regular file"
        raise ConfigError(message, file=path, key=key)


def _read(path: str, key: str, limit: int) -> bytes:
    from labeler.core.files.reading import read_bounded

    check_file(path, key)
    try:
        return read_bounded(path, limit, _Place(path, key), follow=False)
    except OSError as exc:
        raise ConfigError(f"{key}: cannot read it: {exc.strerror}", file=path, key=key) from None


class CrossEncoder:
    """Scores (query, text) pairs; an embedder of one dimension for the score cache."""

    def __init__(self, model_path: str, tokenizer_path: str, max_tokens: int) -> None:
        model = _read(model_path, "rerank.model_path", MAX_MODEL_BYTES)
        vocab = _read(tokenizer_path, "rerank.tokenizer", MAX_TOKENIZER_BYTES)
        self._session = _session(model, model_path)
        self._tokenizer = _tokenizer(vocab, tokenizer_path, max_tokens)
        self._inputs = {i.name for i in self._session.get_inputs()}
        if "input_ids" not in self._inputs:
            found = ", ".join(sorted(self._inputs))
            message = f"rerank.model_path has no input 'input_ids' (it has {found})"
            raise ConfigError(message, file=model_path, key="rerank.model_path")
        self._lock = threading.Lock()
        files = f"model.onnx=sha256:{_sha(model)} tokenizer.json=sha256:{_sha(vocab)}"
        self._fingerprint = f"cross-encoder {files} max_tokens={max_tokens}"
        self.model_path = model_path
        """The file as named, for messages."""

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    @property
    def dim(self) -> int:
        return 1

    @property
    def model_id(self) -> str:
        return self._fingerprint

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        """`texts` are `rerank.pair` keys: a JSON [query, text] each."""
        import json

        pairs = [json.loads(t) for t in texts]
        out = np.empty((len(pairs), 1), dtype=np.float32)
        out[:, 0] = self.score_pairs([(str(q), str(d)) for q, d in pairs])
        return out

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One logit a pair, in order."""
        scores: list[float] = []
        for at in range(0, len(pairs), BATCH):
            with self._lock:  # one session, used by one thread at a time
                scores += self._batch(pairs[at : at + BATCH])
        return scores

    def _batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        encodings = self._tokenizer.encode_batch(list(pairs))
        width = max(len(e.ids) for e in encodings)
        feed = {name: np.zeros((len(pairs), width), dtype=np.int64)
                for name in ("input_ids", "attention_mask", "token_type_ids")}  # fmt: skip
        for i, e in enumerate(encodings):
            n = len(e.ids)
            feed["input_ids"][i, :n] = e.ids
            feed["attention_mask"][i, :n] = 1
            feed["token_type_ids"][i, :n] = e.type_ids
        first = self._session.get_outputs()[0].name
        (logits,) = self._session.run([first], {k: v for k, v in feed.items() if k in self._inputs})
        column = np.asarray(logits, dtype=np.float64).reshape(len(pairs), -1)[:, -1]
        if not all(math.isfinite(x) for x in column):
            raise ConfigError("the cross-encoder gave a score that is not finite",
                              file=self.model_path, key="rerank.model_path")  # fmt: skip
        return [float(x) for x in column]


def _session(model: bytes, path: str) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3  # its warnings are not the user's business
    try:
        return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own classes, unrelated to each other
        from labeler.core.display import shown

        why = shown(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)[:200]
        message = f"rerank.model_path is not an ONNX model onnxruntime can run: {why}"
        raise ConfigError(message, file=path, key="rerank.model_path") from None


def _tokenizer(raw: bytes, path: str, max_tokens: int) -> Any:
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_str(raw.decode("utf-8"))
    except Exception as exc:  # a tokenizers or decode error
        from labeler.core.display import shown

        why = shown(str(exc))[:200]
        message = f"rerank.tokenizer is not a tokenizer.json the tokenizers library reads: {why}"
        raise ConfigError(message, file=path, key="rerank.tokenizer") from None
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens, strategy="longest_first")
    return tokenizer


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def tokenizer_beside(model_path: str) -> str:
    """Where a model's tokenizer is looked for unless named: `tokenizer.json` beside it."""
    return str(Path(model_path).parent / "tokenizer.json")

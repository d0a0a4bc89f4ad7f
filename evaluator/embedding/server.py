"""`embedding = "openai:MODEL"`: any OpenAI-compatible embeddings endpoint (§6, §14).

OpenAI itself, Text Embeddings Inference, vLLM, Ollama and Infinity all take
`POST {base}/embeddings` with `{"model", "input": [...]}` and answer `data[i].embedding`.
Texts go in batches, several batches at once; the base URL comes from
SPANLAB_EMBEDDING_URL (else OPENAI_BASE_URL, else OpenAI's), the key from the variable
SPANLAB_EMBEDDING_KEY_ENV names (default OPENAI_API_KEY), so no key reaches a run file.
The fingerprint holds model, endpoint, dimensions and a probe text's vector, so a model
swapped behind the same alias changes it.
"""

from __future__ import annotations

import hashlib
import os
import urllib.parse
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from evaluator.embedding.base import Progress, Vectors, l2_normalize
from evaluator.embedding.http import Endpoint, post_json
from labeler.core.errors import ConfigError

DEFAULT_URL = "https://api.openai.com/v1"
PROBE = "spanlab embedding probe: the quick brown fox jumps over the lazy dog"
"""Embedded once per process; its rounded vector is part of the fingerprint."""
BATCH = 64
WORKERS = 4


def base_url() -> str:
    return (
        os.environ.get("SPANLAB_EMBEDDING_URL") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_URL
    )


def public_url(url: str) -> str:
    """The URL without credentials or query, as fingerprints and messages show it."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


class OpenAIEmbedder:
    """Embeds through a server; vectors are L2-normalised here whatever the server does."""

    def __init__(self, model: str, url: str | None = None, *, batch: int = BATCH,
                 workers: int = WORKERS, timeout: float = 30.0, retries: int = 4,
                 dimensions: int | None = None) -> None:  # fmt: skip
        if not model:
            raise ConfigError("openai: needs a model name (openai:MODEL)", key="embedding")
        self.model = model
        """The model name the server knows."""
        self.base = public_url(url or base_url())
        """The API base (`http://host:port/v1`)."""
        key = os.environ.get(os.environ.get("SPANLAB_EMBEDDING_KEY_ENV", "OPENAI_API_KEY"), "")
        self.endpoint = Endpoint(f"{self.base}/embeddings", key, timeout, retries)
        """Where requests go; holds the key, which nothing writes out."""
        self.batch = batch
        """Texts per request."""
        self.workers = workers
        """Requests in flight at once."""
        self.dimensions = dimensions
        """Asked-for width (models that can shorten vectors), or the model's own."""
        self._probe: Vectors | None = None

    def _call(self, texts: Sequence[str]) -> Vectors:
        payload: dict[str, Any] = {"model": self.model, "input": list(texts),
                                   "encoding_format": "float"}  # fmt: skip
        if self.dimensions:
            payload["dimensions"] = self.dimensions
        return _vectors(post_json(self.endpoint, payload), len(texts), self.endpoint.url)

    def _probed(self) -> Vectors:
        if self._probe is None:
            self._probe = self._call([PROBE])
        return self._probe

    @property
    def dim(self) -> int:
        return int(self._probed().shape[1])

    @property
    def model_id(self) -> str:
        return f"openai:{self.model}"

    @property
    def fingerprint(self) -> str:
        probe = np.round(self._probed()[0].astype(np.float64), 4).tobytes()
        digest = hashlib.sha256(probe).hexdigest()[:16]
        return f"openai:{self.model} endpoint={self.base} dim={self.dim} probe={digest}"

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        batches = [texts[i : i + self.batch] for i in range(0, len(texts), self.batch)]

        def one(batch: Sequence[str]) -> Vectors:
            vectors = self._call(batch)
            if progress is not None:
                progress(len(batch))
            return vectors

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return np.concatenate(list(pool.map(one, batches)))


def _vectors(answer: Any, n: int, url: str) -> Vectors:
    """The answer's rows in input order, checked: one per text, all of one width."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != n:
        got = len(data) if isinstance(data, list) else "no"
        raise ConfigError(f"{url} returned {got} embeddings for {n} texts", key="embedding")
    try:
        rows = sorted(data, key=lambda d: int(d.get("index", 0)))
        matrix = np.asarray([row["embedding"] for row in rows], dtype=np.float64)
    except (TypeError, ValueError, KeyError, AttributeError):
        raise ConfigError(
            f"{url} returned embeddings of mixed or no width", key="embedding"
        ) from None
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise ConfigError(f"{url} returned embeddings of mixed or no width", key="embedding")
    return l2_normalize(matrix)

"""`embedding = "openai:MODEL"`: any OpenAI-compatible embeddings endpoint (§6, §14).

OpenAI itself, Text Embeddings Inference, vLLM, Ollama and Infinity all take
`POST {base}/embeddings` with `{"model", "input": [...]}` and answer `data[i].embedding`.
Texts go in batches, several batches at once; the base URL comes from
SPANLAB_EMBEDDING_URL (else OPENAI_BASE_URL, else OpenAI's), the key from the variable
SPANLAB_EMBEDDING_KEY_ENV names (default OPENAI_API_KEY), so no key reaches a run file.
The fingerprint holds model, endpoint, dimensions and a probe text's vector, so a model
swapped behind the same alias changes it. A CPU server answers the texts in flight together,
so batch, workers and timeout are settings (LIMITS) a slow one can be met with.
"""

from __future__ import annotations

import hashlib
import os
import urllib.parse
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from evaluator.embedding.base import Progress, Vectors, l2_normalize, vector_problem
from evaluator.embedding.http import Cancel, Endpoint, post_json
from labeler.core.display import describe, unsafe_at
from labeler.core.errors import ConfigError

DEFAULT_URL = "https://api.openai.com/v1"
PROBE = "spanlab embedding probe: the quick brown fox jumps over the lazy dog"
"""Embedded once per process; its rounded vector is part of the fingerprint."""
BATCH = 64
WORKERS = 4
TIMEOUT = 30
"""Seconds for one request, whole: 64 × 4 texts in flight need a server of 9 texts/s or more."""
BUDGET = 60.0
LIMITS = {
    "SPANLAB_EMBEDDING_BATCH": (BATCH, 1, 2048, "texts per request"),
    "SPANLAB_EMBEDDING_WORKERS": (WORKERS, 1, 64, "requests at once"),
    "SPANLAB_EMBEDDING_TIMEOUT": (TIMEOUT, 1, 3600, "seconds for one request"),
}
"""Variable: default, lowest, highest, what it counts."""


def base_url() -> str:
    return (
        os.environ.get("SPANLAB_EMBEDDING_URL") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_URL
    )


def public_url(url: str) -> str:
    """The URL without credentials or query, as fingerprints and messages show it; one
    that is no http(s) URL (a bad port or IPv6 host, a control character) is a ConfigError
    naming the variable, never quoting the URL, which may hold a key."""
    try:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname or "", parts.port
    except ValueError as exc:  # "Invalid IPv6 URL", "Port out of range 0-65535"
        raise _bad_url(str(exc)) from None
    if parts.scheme not in ("http", "https") or not host:
        raise _bad_url("expected http(s)://host[:port]/path")
    if (at := unsafe_at(url)) is not None:
        raise _bad_url(f"it holds {describe(url, at)}")
    netloc = f"{host}:{port}" if port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def limit(name: str) -> int:
    """The whole number the variable `name` of LIMITS sets, else its default; out of range or
    not a number is a ConfigError naming the variable (the value is not quoted)."""
    default, low, high, what = LIMITS[name]
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit() and low <= int(raw) <= high):
        raise ConfigError(
            f"must be a whole number from {low} to {high} ({what})",
            key=name,
            hint=f"unset it for the default, {default}",
        )
    return int(raw)


def _bad_url(why: str) -> ConfigError:
    return ConfigError(
        f"the embedding server URL is not a URL: {why}",
        key="SPANLAB_EMBEDDING_URL",
        hint="set SPANLAB_EMBEDDING_URL (or OPENAI_BASE_URL) to http://host:port/v1",
    )


class OpenAIEmbedder:
    """Embeds through a server; vectors are L2-normalised here whatever the server does."""

    def __init__(self, model: str, url: str | None = None, *, batch: int | None = None,
                 workers: int | None = None, timeout: float | None = None, retries: int = 4,
                 budget: float | None = None, dimensions: int | None = None) -> None:  # fmt: skip
        """Batch, workers and timeout left None come from LIMITS' variables, else defaults;
        the budget is at least two timeouts."""
        if not model:
            raise ConfigError("openai: needs a model name (openai:MODEL)", key="embedding")
        self.model = model
        """The model name the server knows."""
        self.base = public_url(url or base_url())
        """The API base (`http://host:port/v1`)."""
        key = os.environ.get(os.environ.get("SPANLAB_EMBEDDING_KEY_ENV", "OPENAI_API_KEY"), "")
        timeout = limit("SPANLAB_EMBEDDING_TIMEOUT") if timeout is None else timeout
        budget = max(BUDGET, 2.0 * timeout) if budget is None else budget
        self.endpoint = Endpoint(f"{self.base}/embeddings", key, timeout, retries, budget=budget)
        """Where requests go; holds the key, which nothing writes out."""
        self.batch = limit("SPANLAB_EMBEDDING_BATCH") if batch is None else batch
        """Texts per request."""
        self.workers = limit("SPANLAB_EMBEDDING_WORKERS") if workers is None else workers
        """Requests in flight at once."""
        self.dimensions = dimensions
        """Asked-for width (models that can shorten vectors), or the model's own."""
        self._probe: Vectors | None = None

    def _call(self, texts: Sequence[str], cancel: Cancel | None = None) -> Vectors:
        payload: dict[str, Any] = {"model": self.model, "input": list(texts),
                                   "encoding_format": "float"}  # fmt: skip
        if self.dimensions:
            payload["dimensions"] = self.dimensions
        answer = post_json(self.endpoint, payload, cancel)
        width = None if self._probe is None else self.dim
        return _vectors(answer, len(texts), self.endpoint.url, width)

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
        width = self.dim  # the probe first: a dead server fails once, here, not per worker
        if not texts:
            return np.zeros((0, width), dtype=np.float32)
        batches = [texts[i : i + self.batch] for i in range(0, len(texts), self.batch)]
        cancel = Cancel()

        def one(batch: Sequence[str]) -> Vectors:
            try:
                vectors = self._call(batch, cancel)
            except BaseException as exc:  # the requests in flight end now, queued ones never start
                cancel.cancel(exc)
                raise
            if progress is not None:
                progress(len(batch))
            return vectors

        pool = ThreadPoolExecutor(max_workers=self.workers)
        try:
            return np.concatenate(list(pool.map(one, batches)))
        except BaseException as exc:
            cancel.cancel(exc)
            raise (cancel.cause or exc) from None
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _refused(url: str, problem: str) -> ConfigError:
    message = f"{url} returned {problem}; nothing from this answer was kept"
    return ConfigError(message, key="embedding")


def _rows(data: list[Any], url: str) -> list[Any]:
    """`data`'s embeddings in input order: the `index` values must be 0..n-1, each once."""
    found = [row.get("index") if isinstance(row, dict) else None for row in data]
    indices = [i for i in found if isinstance(i, int) and not isinstance(i, bool)]
    if len(indices) != len(data):
        raise _refused(url, "an embedding without an integer 'index'")
    if sorted(indices) != list(range(len(data))):
        span = f"0..{len(data) - 1}"
        raise _refused(url, f"'index' values {_few(indices)}, not {span} once each")
    by_index = {i: row.get("embedding") for i, row in zip(indices, data, strict=True)}
    return [by_index[i] for i in range(len(data))]


def _few(values: list[Any]) -> str:
    return str(values[:8])[:-1] + (", …]" if len(values) > 8 else "]")


def _vectors(answer: Any, n: int, url: str, width: int | None) -> Vectors:
    """The answer's rows in input order, checked (`vector_problem`) before anyone keeps them."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != n:
        got = len(data) if isinstance(data, list) else "no"
        raise _refused(url, f"{got} embeddings for {n} texts")
    rows = _rows(data, url)
    if not all(isinstance(r, list) and all(_number(v) for v in r) for r in rows):
        raise _refused(url, "an embedding that is not a list of numbers")
    try:
        matrix = np.asarray(rows, dtype=np.float64)
    except ValueError:
        raise _refused(url, "embeddings of mixed width") from None
    problem = vector_problem(matrix, n, width)
    if problem is not None:
        raise _refused(url, problem)
    return l2_normalize(matrix)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)

"""One POST to an embeddings endpoint, with a timeout and retries with backoff.

Servers shed load with 429 and 503 (and drop connections when restarting), so those are
retried, waiting Retry-After when given, else 0.5 s doubling; any other 4xx is the
caller's mistake and is reported at once with the server's own message. The key is sent
as a bearer token and never appears in an error.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from labeler.core.errors import ConfigError

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
"""HTTP statuses worth another try."""


@dataclass(frozen=True)
class Endpoint:
    """Where and how to call."""

    url: str
    """The full URL (`…/v1/embeddings`)."""
    key: str = ""
    """Bearer token; empty sends none (local servers)."""
    timeout: float = 30.0
    """Seconds per attempt."""
    retries: int = 4
    """Attempts after the first."""
    backoff: float = 0.5
    """First wait, doubled after each failure."""


def _request(endpoint: Endpoint, payload: dict[str, Any]) -> urllib.request.Request:
    headers = {"Content-Type": "application/json", "User-Agent": "spanlab"}
    if endpoint.key:
        headers["Authorization"] = f"Bearer {endpoint.key}"
    body = json.dumps(payload).encode("utf-8")
    return urllib.request.Request(endpoint.url, data=body, headers=headers, method="POST")


def _server_message(error: urllib.error.HTTPError) -> str:
    try:
        detail = json.loads(error.read().decode("utf-8", "replace"))
        message = detail.get("error", detail) if isinstance(detail, dict) else detail
        if isinstance(message, dict):
            message = message.get("message", message)
        return str(message)[:300]
    except (ValueError, OSError):
        return error.reason if isinstance(error.reason, str) else ""


def _wait(endpoint: Endpoint, attempt: int, error: Exception) -> float:
    if isinstance(error, urllib.error.HTTPError):
        after = error.headers.get("Retry-After") if error.headers else None
        if after and after.replace(".", "", 1).isdigit():
            return min(float(after), 60.0)
    return float(endpoint.backoff * (2**attempt))


def post_json(endpoint: Endpoint, payload: dict[str, Any]) -> Any:
    """The decoded JSON answer; ConfigError (key `embedding`) when it cannot be had."""
    last = ""
    for attempt in range(endpoint.retries + 1):
        try:
            with urllib.request.urlopen(_request(endpoint, payload), timeout=endpoint.timeout) as r:
                return json.loads(r.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            last = f"HTTP {exc.code}: {_server_message(exc)}"
            if exc.code not in RETRY_STATUS:
                break
            error: Exception = exc
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            last, error = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}", exc
        except ValueError as exc:
            raise ConfigError(
                f"{endpoint.url} answered with bad JSON: {exc}", key="embedding"
            ) from None
        if attempt < endpoint.retries:
            time.sleep(_wait(endpoint, attempt, error))
    raise ConfigError(
        f"embedding server {endpoint.url} failed: {last}",
        key="embedding",
        hint="check the URL (SPANLAB_EMBEDDING_URL or OPENAI_BASE_URL) and that the server runs",
    )

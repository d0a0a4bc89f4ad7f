"""One POST to an embeddings endpoint: a total deadline, a bounded body, retries, no key shown.

A socket timeout bounds each read, not the request: a server that answers one byte every
few seconds never trips it. So every attempt has a deadline for the whole exchange
(connect, send, every byte of the answer), enforced by a timer that shuts the socket, and
a call with its retries has a budget; a run's other requests are ended at once when one
fails (`Cancel`). 429, 5xx and dropped connections are retried (Retry-After honoured, else
0.5 s doubling) while the budget lasts; any other 4xx is reported at once with the
server's own words, redacted: the key never appears in anything spanlab shows.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from labeler.core.errors import ConfigError
from labeler.core.secrets import redact
from labeler.core.typed import Refusal, json_tree

RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
"""HTTP statuses worth another try."""
MAX_BODY = 64 * 1024 * 1024
"""Largest answer read (bytes): 64 vectors of 3,072 floats as JSON take about 4 MB."""
MAX_ERROR_BODY = 64 * 1024
"""Largest error answer read (bytes); only its first 300 characters are shown."""
_PIECE = 1 << 16


@dataclass(frozen=True)
class Endpoint:
    """Where and how to call."""

    url: str
    """The full URL (`…/v1/embeddings`)."""
    key: str = ""
    """Bearer token; empty sends none (local servers)."""
    timeout: float = 30.0
    """Seconds for one attempt, whole: connect, send and every byte of the answer."""
    retries: int = 4
    """Attempts after the first, while `budget` lasts."""
    backoff: float = 0.5
    """First wait, doubled after each failure."""
    budget: float = 60.0
    """Seconds for a call with all its retries and waits: what a stalled server costs."""
    role: str = "embedding"
    """What the server is for (`embedding`, `rerank`, `search`, `generation`): the key
    errors name."""
    max_body: int = MAX_BODY
    """Largest answer read (bytes); a chat answer needs far less than a batch of vectors."""

    def redact(self, text: str) -> str:
        """`text` with the key, the URL's password and any credential in it replaced
        (labeler.core.secrets), as every message shows it: a server's own words may echo the
        password alone, without the URL around it."""
        try:
            password = urllib.parse.urlsplit(self.url).password or ""
        except ValueError:
            password = ""
        return redact(text, self.key, password)


class Cancel:
    """The requests of one run: when one fails, `cancel` ends the others at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self.cancelled = False
        """Set once; later attempts stop before they start."""
        self.cause: BaseException | None = None
        """The first failure, which the run reports (the others only stopped because of it)."""

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.add(sock)
            cancelled = self.cancelled
        if cancelled:
            _shut(sock)

    def discard(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)

    def cancel(self, cause: BaseException | None = None) -> None:
        with self._lock:
            self.cancelled = True
            self.cause = self.cause or cause
            socks = list(self._open)
        for sock in socks:
            _shut(sock)


@dataclass
class PostFailed(ConfigError):
    """post_json's failure; `kind` says which: "timeout", "too large", "bad JSON",
    "HTTP error" or "unreachable" (what a caller counts, without reading the words)."""

    kind: str = "unreachable"


class _Failed(Exception):
    """One attempt failed; `status` is the HTTP status (0: no answer); `kind` as PostFailed's."""

    def __init__(
        self, text: str, status: int = 0, retry_after: float | None = None, *, final: bool = False,
        kind: str = "unreachable",
    ) -> None:  # fmt: skip
        super().__init__(text)
        self.text, self.status, self.retry_after = text, status, retry_after
        self.kind = "HTTP error" if status else kind
        self.final = final or bool(status and status not in RETRY_STATUS)
        """True when another try cannot help (a 4xx, a body over the limit)."""


def _shut(sock: socket.socket) -> None:
    """End every read and write on `sock` now (a blocked `recv` returns at once)."""
    with contextlib.suppress(OSError):  # already closed: nothing left to end
        sock.shutdown(socket.SHUT_RDWR)


def _connection(url: str, timeout: float) -> tuple[http.client.HTTPConnection, str]:
    """A connection to the server, or through the proxy the environment names (as urllib
    honours HTTP(S)_PROXY and NO_PROXY), and the path to request."""
    parts = urllib.parse.urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and urllib.request.proxy_bypass(parts.hostname or ""):
        proxy = None
    if parts.scheme != "https":
        via = urllib.parse.urlsplit(proxy) if proxy else parts
        conn = http.client.HTTPConnection(via.hostname or "", via.port, timeout=timeout)
        return conn, (url if proxy else path)
    if not proxy:
        return http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=timeout), path
    via = urllib.parse.urlsplit(proxy)
    conn = http.client.HTTPSConnection(via.hostname or "", via.port, timeout=timeout)
    conn.set_tunnel(parts.hostname or "", parts.port or 443)
    return conn, path


def _headers(endpoint: Endpoint) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "User-Agent": "spanlab"}
    if endpoint.key:
        headers["Authorization"] = f"Bearer {endpoint.key}"
    return headers


def _body(response: http.client.HTTPResponse, limit: int) -> bytes:
    """The whole answer, refused unread when it says (or turns out to be) over `limit`."""
    length = response.getheader("Content-Length")
    if length and length.strip().isdigit() and int(length) > limit:
        raise _Failed(
            f"answered {int(length):,} bytes, over the limit of {limit:,}",
            final=True,
            kind="too large",
        )
    pieces, size = [], 0
    while piece := response.read(_PIECE):
        size += len(piece)
        if size > limit:
            raise _Failed(
                f"answered more than {limit:,} bytes (the limit)", final=True, kind="too large"
            )
        pieces.append(piece)
    if length and length.strip().isdigit() and size < int(length):
        raise _Failed(f"the answer ended after {size:,} of its {int(length):,} bytes")
    return b"".join(pieces)


def _attempt(endpoint: Endpoint, body: bytes, deadline: float, cancel: Cancel) -> bytes:
    """The answer's bytes within `deadline` (monotonic), or _Failed."""
    conn, path = _connection(endpoint.url, max(0.01, deadline - time.monotonic()))
    timer: threading.Timer | None = None
    try:
        conn.connect()  # bounded by the connection's timeout: what is left of the deadline
        sock = conn.sock  # kept: the connection lets go of it once the answer's headers are in
        assert sock is not None
        cancel.add(sock)
        timer = threading.Timer(max(0.0, deadline - time.monotonic()), _shut, (sock,))
        timer.start()
        conn.request("POST", path, body, _headers(endpoint))
        response = conn.getresponse()
        if response.status >= 400:
            raise _error(response)
        return _body(response, endpoint.max_body)
    except (OSError, http.client.HTTPException, _Failed) as exc:
        if cancel.cancelled:
            raise _Failed("stopped: another request of this run failed") from None
        if time.monotonic() >= deadline - 0.05 or isinstance(exc, TimeoutError):
            raise _Failed(
                f"no whole answer within {endpoint.timeout:g} s", kind="timeout"
            ) from None
        if isinstance(exc, _Failed):
            raise
        raise _Failed(f"{type(exc).__name__}: {exc}") from None
    finally:
        if timer is not None:
            timer.cancel()
            cancel.discard(sock)
        conn.close()


def _error(response: http.client.HTTPResponse) -> _Failed:
    try:
        raw = _body(response, MAX_ERROR_BODY)
    except (_Failed, OSError, http.client.HTTPException):
        raw = b""
    after = response.getheader("Retry-After") or ""
    wait = min(float(after), 60.0) if after.replace(".", "", 1).isdigit() else None
    return _Failed(
        f"HTTP {response.status}: {_message(raw, response.reason)}", response.status, wait
    )


def _message(raw: bytes, reason: str) -> str:
    """The server's own words: `error.message` of a JSON answer, else its text."""
    text = raw.decode("utf-8", "replace")
    try:
        detail = json.loads(text)
    except (ValueError, RecursionError):
        return text or reason
    message = detail.get("error", detail) if isinstance(detail, dict) else detail
    if isinstance(message, dict):
        message = message.get("message", message)
    return str(message)


@dataclass(frozen=True)
class _Answer:
    """The JSON answer's place, for the shared bounds (nesting, NaN, absurd numbers)."""

    url: str
    role: str = "embedding"

    def at(self, key: str) -> _Answer:
        return self

    def refuse(self, refusal: Refusal) -> ConfigError:
        return PostFailed(f"{self.url} answered: {refusal.message}", key=self.role, kind="bad JSON")


def _decoded(endpoint: Endpoint, raw: bytes) -> Any:
    try:
        return json_tree(raw.decode("utf-8"), _Answer(endpoint.url, endpoint.role))
    except (ValueError, UnicodeDecodeError) as exc:
        message = f"{endpoint.url} answered with bad JSON: {exc}"
        raise PostFailed(
            endpoint.redact(message)[:400], key=endpoint.role, kind="bad JSON"
        ) from None


def post_json(endpoint: Endpoint, payload: dict[str, Any], cancel: Cancel | None = None) -> Any:
    """The decoded JSON answer; ConfigError (key: the endpoint's role) when it cannot be had
    in time."""
    cancel = cancel or Cancel()
    body = json.dumps(payload).encode("utf-8")
    start, last, kind = time.monotonic(), "", "unreachable"
    for attempt in range(endpoint.retries + 1):
        if cancel.cancelled:
            last, kind = "stopped: another request of this run failed", "unreachable"
            break
        deadline = min(time.monotonic() + endpoint.timeout, start + endpoint.budget)
        try:
            raw = _attempt(endpoint, body, deadline, cancel)
        except _Failed as exc:
            last, kind = exc.text, exc.kind
            wait = exc.retry_after if exc.retry_after is not None else endpoint.backoff * 2**attempt
            if cancel.cancelled or exc.final:
                break
            if time.monotonic() + wait + 1.0 > start + endpoint.budget:
                break
        else:
            return _decoded(endpoint, raw)
        if attempt < endpoint.retries:
            time.sleep(wait)
    raise _failure(endpoint, last, time.monotonic() - start, kind)


URL_HINT = "check the URL (SPANLAB_EMBEDDING_URL or OPENAI_BASE_URL) and that the server runs"
OTHER_URL_HINT = "check the candidate's url and that the server runs"
SLOW_HINT = (
    "a slow server (it answers the texts in flight together): allow more time per request"
    " with SPANLAB_EMBEDDING_TIMEOUT, or send fewer texts at once with"
    " SPANLAB_EMBEDDING_WORKERS and SPANLAB_EMBEDDING_BATCH"
)


def _failure(endpoint: Endpoint, last: str, spent: float, kind: str) -> PostFailed:
    said = endpoint.redact(last)[:300]
    slow = kind == "timeout"
    hint = SLOW_HINT if slow else URL_HINT
    if endpoint.role != "embedding":
        hint = OTHER_URL_HINT
    return PostFailed(
        endpoint.redact(
            f"{endpoint.role} server {endpoint.url} failed after {spent:.1f} s: {said}"
        ),
        key=endpoint.role,
        hint=hint,
        kind=kind,
    )

"""Every reply of a Chroma server read whole under one deadline, bounded and typed, before
chromadb parses it (§13, §20): a server is another program, possibly hostile.

httpx's timeouts are per operation, so a server sending one byte every 2 s never trips one;
and chromadb parses whatever arrives (a list where a collection belongs is a pydantic
traceback). `Bounded` wraps the session's transport: each call runs in a worker whose whole
answer (connect, send, headers, body) must come within the call's deadline; the body is at
most MAX_BODY bytes, JSON nested at most MAX_DEPTH deep with finite numbers of at most
MAX_DIGITS digits; and a collection, or a listing of them, has the shape spanlab
reads. Anything else is one error naming the server and where in the reply.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any

import httpx

from labeler.core.errors import SpanlabError
from labeler.core.typed import MAX_DEPTH, Refusal, shallow

MAX_BODY = 256 * 1024 * 1024
"""Largest reply read from a server (bytes): a `get` of 100,000 chunks' ids and metadata
fits many times over."""
_LISTING = re.compile(r"/collections/?$")
_ONE = re.compile(r"/collections/[^/]+/?$")
_SCALARS = (str, int, float, bool, type(None))
MAX_DIGITS = 20
"""Most digits of an integer in a reply: Chroma's own are 64-bit (a heartbeat's nanoseconds)."""


class ReplyError(SpanlabError):
    """A server's reply spanlab will not read: too large, too deep, NaN, the wrong shape."""


@dataclass(frozen=True)
class _At:
    """Where in a reply a value sits, as labeler.core.typed's bounds word it."""

    url: str
    """The call's URL."""
    key: str = ""
    """The key path in its JSON body (`[0].metadata.chunks`)."""

    def at(self, key: str) -> _At:
        part = key if key.startswith("[") else f".{key}"
        return _At(self.url, f"{self.key}{part}" if self.key else key)

    def refuse(self, refusal: Refusal) -> ReplyError:
        return refused(self.url, refusal.message, self.key)


def refused(url: str, what: str, key: str = "") -> ReplyError:
    where = f" at {key}" if key else ""
    return ReplyError(
        f"the Chroma server's reply to {url}{where}: {what}",
        key="chroma_url",
        hint="is the URL a Chroma server spanlab supports? spanlab reads no reply it cannot type",
    )


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON may hold")


def _int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"the integer {literal[:20]}… has over {MAX_DIGITS} digits")
    return int(literal)


def _parsed(text: str, where: _At) -> Any:
    """`text` as JSON nested at most MAX_DEPTH deep, with no NaN, infinity or huge integer."""
    shallow(text, where)
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_int)
    except RecursionError:
        raise refused(where.url, f"is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise refused(where.url, str(exc)) from None


def _shape(tree: Any) -> str | None:
    """What is wrong with a collection's shape, or None."""
    if not isinstance(tree, dict):
        return "is not an object (a collection)"
    if not isinstance(tree.get("name"), str) or not isinstance(tree.get("id"), str):
        return "has no string `name` and `id`"
    meta = tree.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        return "has `metadata` that is not an object"
    for key, value in (meta or {}).items():
        if not isinstance(value, _SCALARS):
            return f"has metadata `{key}` that is not a string, number or boolean"
    return None


def check(request: httpx.Request, status: int, body: bytes) -> None:
    """Refuse `body` unless it is bounded JSON of the shape the call's path promises."""
    url = str(request.url.copy_with(query=None))
    if not body.strip():
        return
    where = _At(url)
    try:
        tree = _parsed(body.decode("utf-8"), where)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        if status >= 400:
            return  # an error reply's text: chromadb words it, `server_errors` names it
        raise refused(url, f"is not JSON: {exc}") from None
    if status >= 400 or request.method not in ("GET", "POST"):
        return
    path = request.url.path
    items = tree if _LISTING.search(path) and request.method == "GET" else None
    if items is not None and not isinstance(items, list):
        raise refused(url, "is not an array (of collections)")
    for n, item in enumerate(items if items is not None else []):
        if (problem := _shape(item)) is not None:
            raise refused(url, problem, f"[{n}]")
    if items is None and _ONE.search(path) and (problem := _shape(tree)) is not None:
        raise refused(url, problem)


class Bounded(httpx.BaseTransport):
    """A transport whose every call has a total deadline and a checked, bounded reply."""

    def __init__(self, inner: httpx.BaseTransport, timeout: float) -> None:
        self.inner = inner
        """The transport that talks to the server."""
        self.timeout = timeout
        """Seconds a whole call may take."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["Accept-Encoding"] = "identity"  # the body is checked as it comes
        box: dict[str, Any] = {}
        stop = threading.Event()
        worker = threading.Thread(
            target=self._fetch, args=(request, box, stop), name="chroma-call", daemon=True
        )
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            stop.set()  # the worker gives up at its next piece; a header drip, at its read
            raise httpx.ReadTimeout(f"no whole answer within {self.timeout:g} s", request=request)
        if "error" in box:
            raise box["error"]
        status, headers, body = box["reply"]
        check(request, status, body)
        return httpx.Response(status, headers=headers, content=body, request=request)

    def _fetch(self, request: httpx.Request, box: dict[str, Any], stop: threading.Event) -> None:
        try:
            response = self.inner.handle_request(request)
            pieces: list[bytes] = []
            held = 0
            try:
                for piece in response.stream:  # type: ignore[union-attr]
                    held += len(piece)
                    if held > MAX_BODY:
                        over = f"is over {MAX_BODY:,} bytes"
                        raise refused(str(request.url.copy_with(query=None)), over)
                    if stop.is_set():
                        return
                    pieces.append(piece)
            finally:
                response.close()
            box["reply"] = (response.status_code, response.headers, b"".join(pieces))
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    def close(self) -> None:
        self.inner.close()


def bounded_get(url: str, timeout: float) -> None:
    """GET `url` (a heartbeat) under the same deadline and checks; raises httpx's errors."""
    with httpx.Client(transport=Bounded(httpx.HTTPTransport(), timeout), timeout=timeout) as c:
        c.get(url).raise_for_status()

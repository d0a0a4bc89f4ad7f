"""A Chroma server client whose every call has a timeout, and errors that name the server.

chromadb's HTTP client talks through an `httpx.Client(timeout=None)`: a server that stops
answering (SIGSTOP, a stalled proxy) would hang a run forever, and one that dies gives a
raw `RemoteProtocolError`. `connect_server` bounds that session (chromadb offers no
setting for it, and refuses API classes of its own); `server_errors` turns what httpx
raises into one line naming the URL. Every call also goes through `chroma_reply.Bounded`: a
total deadline, and a reply bounded and typed before chromadb parses it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from evaluator.retrieval.chroma_reply import Bounded
from labeler.core.errors import SpanlabError

STALLED: set[str] = set()
"""Servers that did not answer a call of this process in time: what is left to tidy there
(a run's lease) is left to go stale, not waited for again."""
CALL_TIMEOUT = 8.0
"""Default seconds any one call to a Chroma server may take (`chroma_timeout`): well within
the 10 s §13 allows, and several times what a 4,096-chunk add takes on a busy server."""


def connect_server(host: str, port: int, ssl: bool, timeout: float, settings: Any) -> Any:
    """A chromadb client of the server, every request bounded by `timeout` seconds.

    Creating the client already talks to the server (tenant and database checks) through
    the unbounded session, so it runs in a daemon thread that is given up after `timeout`.
    """
    import chromadb

    made: dict[str, Any] = {}

    def make() -> None:
        try:
            made["client"] = chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
        except BaseException as exc:  # handed to the caller's thread below
            made["error"] = exc

    worker = threading.Thread(target=make, name="chroma-connect", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise httpx.ReadTimeout("no answer while opening the client")
    if "error" in made:
        raise _opening_error(made["error"], host, port)
    client = made["client"]
    session: httpx.Client = client._server._session  # chromadb builds it with timeout=None
    session.timeout = httpx.Timeout(timeout)
    session._transport = Bounded(session._transport, timeout)  # a total deadline, typed replies
    return client


def _opening_error(exc: BaseException, host: str, port: int) -> BaseException:
    """What opening the client raised: httpx's and Chroma's own errors as they are (for
    `server_errors`), anything else — chromadb choking on a reply of the wrong shape — one
    error naming the server."""
    from chromadb.errors import ChromaError

    if isinstance(exc, httpx.HTTPError | ChromaError | SpanlabError | KeyboardInterrupt):
        return exc
    return SpanlabError(
        f"the Chroma server at {host}:{port} answered the client's opening calls with a reply "
        f"spanlab cannot read: {type(exc).__name__}: {str(exc)[:200]}",
        key="chroma_url",
        hint="is the URL a Chroma server spanlab supports?",
    )


@contextmanager
def server_errors(url: str | None, timeout: float) -> Iterator[None]:
    """Turn a stalled or vanished Chroma server into a SpanlabError naming `url`."""
    if url is None:
        yield
        return
    from chromadb.errors import ChromaError

    try:
        yield
    except httpx.TimeoutException:
        STALLED.add(url)
        raise SpanlabError(
            f"the Chroma server at {url} did not answer within {timeout:g} s",
            key="chroma_url",
            hint="is it stopped or overloaded? Raise `chroma_timeout` in spanlab.toml if it "
            "is only slow",
        ) from None
    except ChromaError as exc:  # what a caller did not expect of the server, named so
        raise SpanlabError(
            f"the Chroma server at {url} refused a call: {type(exc).__name__}: {exc}",
            key="chroma_url",
            hint="is it the Chroma version spanlab installs, with room on its disk?",
        ) from None
    except httpx.HTTPError as exc:
        raise SpanlabError(
            f"the Chroma server at {url} went away mid-run: {type(exc).__name__}: {exc}",
            key="chroma_url",
            hint="restart it (`chroma run --path DIR --port PORT`) and run again",
        ) from None

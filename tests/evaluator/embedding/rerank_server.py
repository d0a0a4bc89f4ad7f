"""A reranking server and a team's search endpoint, for the tests (§19).

`POST /rerank` (and `/v1/rerank`) speaks the common shape: `{"query", "documents"}` (or
TEI's `texts`) in, Cohere's `{"results": [{"index", "relevance_score"}]}` out — or TEI's
bare list with `score` when `State.tei` is set. Its scores are the share of the query's
words in each document, so a test can work the order out by hand. `POST /search` answers
`{"ranked": [...]}` from `State.search` (query text, k → items). Both misbehave as the
fake embeddings server does (`State.mode`, one of MODES).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.evaluator.embedding.openai_server import misbehave, send_raw
from tests.evaluator.quiet_http import QuietServer

MODES = {
    "": "answer well",
    "stall": "read the request, then never answer",
    "trickle": "send the answer's headers, then one byte every `trickle` seconds",
    "nan": "a NaN score",
    "overflow": "a score of 1e39: finite in JSON, beyond float32",
    "scrambled": "items in reverse order with their true indices (valid for rerank)",
    "dropped": "the last item left out",
    "duplicate-index": "the last item repeats the first one's index (search: the first item)",
    "off-chunk": "search: the first item's end one past its chunk's",
    "too-many": "search: one item more than k",
    "echo-key": "401 whose message echoes the Authorization header",
    "huge": "a 500 MB Content-Length, then zeros until the client hangs up",
    "raw": "`State.raw` as the whole body, status 200",
}
"""How the server may misbehave, and what each does."""

WORD = re.compile(r"[a-z0-9]+")


def overlap(query: str, doc: str) -> float:
    """The share of the query's distinct words found in the document."""
    wanted = set(WORD.findall(query.lower()))
    return len(wanted & set(WORD.findall(doc.lower()))) / len(wanted) if wanted else 0.0


Search = Callable[[str, int], list[dict[str, Any]]]
"""The team's ranking: query text and k in, items out."""


class State:
    """What the handler shares: the key, the search, how to misbehave, a request log."""

    def __init__(self, key: str = "", search: Search | None = None) -> None:
        self.key = key
        """Required bearer key; empty accepts any request."""
        self.search: Search = search or (lambda text, k: [])
        """Ranks a query for `/search`."""
        self.mode = ""
        """How to misbehave: a key of MODES."""
        self.tei = False
        """Answer `/rerank` as TEI does: a bare list of `{index, score}`."""
        self.trickle = 4.0
        """Seconds between the bytes of a trickled answer."""
        self.raw = b""
        """The body the `raw` mode sends."""
        self.requests: list[str] = []
        """The path of every request served."""
        self.stop = threading.Event()
        """Set to end stalls and trickles (at shutdown)."""


def _rerank(state: State, payload: dict[str, Any]) -> Any:
    docs = payload.get("documents") or payload.get("texts") or []
    scores: list[Any] = [overlap(payload["query"], d) for d in docs]
    if state.mode in ("nan", "overflow") and scores:
        scores[0] = float("nan") if state.mode == "nan" else 1e39
    key = "score" if state.tei else "relevance_score"
    items = [{"index": i, key: s} for i, s in enumerate(scores)]
    items = sorted(items, key=lambda it: -float(it[key]) if it[key] == it[key] else 0)
    items = _spoil(state.mode, items)
    return items if state.tei else {"results": items, "model": payload.get("model", "")}


def _search(state: State, payload: dict[str, Any]) -> Any:
    items = state.search(payload["query"], payload["k"])
    if state.mode == "off-chunk" and items:
        items[0] = {**items[0], "end": items[0]["end"] + 1}
    if state.mode == "too-many" and items:
        items = items + items[:1]
    if state.mode == "duplicate-index" and len(items) > 1:  # the last item is the first again
        items = [*items[:-1], items[0]]
    if state.mode in ("nan", "overflow") and items:
        items[0] = {**items[0], "score": float("nan") if state.mode == "nan" else 1e39}
    return {"ranked": items}


def _spoil(mode: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if mode == "scrambled":
        return items[::-1]
    if mode == "dropped":
        return items[:-1]
    if mode == "duplicate-index" and len(items) > 1:
        return [*items[:-1], {**items[-1], "index": items[0]["index"]}]
    return items


def handler(state: State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode("utf-8")  # NaN as JSON's NaN, as a bad server sends
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            try:
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            except (ValueError, OSError):
                return None
            path = urlsplit(self.path).path
            state.requests.append(path)
            given = self.headers.get("Authorization") or ""
            if state.mode == "echo-key":
                return self._send(401, {"error": {"message": f"bad key: {given}"}})
            if state.key and given != f"Bearer {state.key}":
                return self._send(401, {"error": {"message": "bad key"}})
            if state.mode in ("stall", "trickle", "huge"):
                return self._misbehave(state.mode)
            if state.mode == "raw":
                return self._raw(state.raw)
            if path in ("/rerank", "/v1/rerank"):
                return self._send(200, _rerank(state, payload))
            if path == "/search":
                return self._send(200, _search(state, payload))
            return self._send(404, {"error": {"message": f"no route {path}"}})

        def _raw(self, body: bytes) -> None:
            send_raw(self, body)

        def _misbehave(self, mode: str) -> None:
            misbehave(self, mode, state.stop, state.trickle)

    return Handler


def serve(state: State) -> ThreadingHTTPServer:
    """A started server on a free port of 127.0.0.1, serving in a daemon thread."""
    server = QuietServer(("127.0.0.1", 0), handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server

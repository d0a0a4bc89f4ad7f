"""A real OpenAI-compatible embeddings server over the project's MiniLM, for the tests.

It speaks `POST /v1/embeddings` as OpenAI documents it (`{"model", "input"}` in,
`{"object": "list", "data": [{"object": "embedding", "index", "embedding"}], "model",
"usage"}` out), checks the bearer key when one is set, and can be told to fail its next
requests with a status (429 with Retry-After, 503) to exercise the client's retries.
It can also misbehave as a hostile or broken server does (`State.mode`, one of MODES):
stall, trickle its answer, send NaN or Inf, change width after the probe, scramble or
repeat the `index` values, echo the key in a 401, or send a huge body.
Run as a script it serves on the port given: `python openai_server.py 8089`.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from evaluator.embedding.minilm import MiniLMEmbedder
from tests.evaluator.quiet_http import QuietServer

MODES = {
    "": "answer as OpenAI does",
    "stall": "read the request, then never answer",
    "trickle": "send the answer's headers, then one byte every `trickle` seconds",
    "nan": "a NaN in the first vector",
    "inf": "an Infinity in the first vector",
    "overflow": "1e39 in the first vector: finite as JSON, Inf as float32",
    "width": "after the first request (the probe), vectors one value shorter",
    "zero-index": "every row's index 0",
    "duplicate-index": "the last row repeats the first row's index",
    "scrambled": "rows in reverse order with their true indices (valid: must be reordered)",
    "echo-key": "401 whose message echoes the Authorization header",
    "huge": "a 500 MB Content-Length, then zeros until the client hangs up",
    "endless": "no Content-Length, zeros until the client hangs up",
    "raw": "`State.raw` as the whole body, status 200",
}
"""How the server may misbehave, and what each does."""


class Model(Protocol):
    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


class HashModel:
    """Deterministic vectors of `width` from each text's bytes: a server with no model."""

    def __init__(self, width: int = 384) -> None:
        self.width = width

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        rows = []
        for text in texts:
            seed = int.from_bytes(text.encode("utf-8")[:8].ljust(8, b"\0"), "little")
            rows.append(np.random.default_rng(seed + len(text)).standard_normal(self.width))
        return np.asarray(rows, dtype=np.float32)


class State:
    """What the handler shares: the model, the key, failures to inject, a request log."""

    def __init__(self, model: Model, key: str = "") -> None:
        self.model = model
        """The embedder behind the API."""
        self.key = key
        """Required bearer key; empty accepts any request."""
        self.fail: list[int] = []
        """Statuses to answer the next requests with, in order."""
        self.requests: list[int] = []
        """Batch size of every request served (0 for a failed one)."""
        self.mode = ""
        """How to misbehave: a key of MODES."""
        self.trickle = 4.0
        """Seconds between the bytes of a trickled answer."""
        self.raw = b""
        """The body the `raw` mode sends."""
        self.stop = threading.Event()
        """Set to end stalls and trickles (at shutdown)."""
        self.lock = threading.Lock()


def handler(state: State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            for k, v in {"Content-Type": "application/json", **headers}.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            try:
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            except (ValueError, OSError):  # a client that hung up mid-request
                return None
            with state.lock:
                fail = state.fail.pop(0) if state.fail else 0
            if fail:
                state.requests.append(0)
                return self._send(fail, {"error": {"message": "busy"}}, {"Retry-After": "0"})
            given = self.headers.get("Authorization") or ""
            if state.mode == "echo-key":
                message = f"Incorrect API key provided: {given}. Authorization: {given}"
                return self._send(401, {"error": {"message": message}}, {})
            if state.key and given != f"Bearer {state.key}":
                return self._send(401, {"error": {"message": "Incorrect API key"}}, {})
            if urlsplit(self.path).path != "/v1/embeddings":  # as a proxy sees it, too
                return self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
            texts = payload["input"] if isinstance(payload["input"], list) else [payload["input"]]
            vectors = state.model.embed(texts)
            with state.lock:
                state.requests.append(len(texts))
                served = len(state.requests)
            if state.mode in ("stall", "trickle", "huge", "endless"):
                return self._misbehave(state.mode)
            if state.mode == "raw":
                return self._raw(state.raw)
            data = _rows(state.mode, [v.tolist() for v in vectors], served)
            usage = {"prompt_tokens": 0, "total_tokens": 0}
            body = {"object": "list", "data": data, "model": payload["model"], "usage": usage}
            return self._send(200, body, {})

        def _raw(self, body: bytes) -> None:
            send_raw(self, body)

        def _misbehave(self, mode: str) -> None:
            misbehave(self, mode, state.stop, state.trickle)

    return Handler


def send_raw(handler: BaseHTTPRequestHandler, body: bytes) -> None:
    """An answer of exactly these bytes (a reply that is not JSON, or not the API's)."""
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def misbehave(
    handler: BaseHTTPRequestHandler, mode: str, stop: threading.Event, trickle: float
) -> None:
    """A server that stalls, trickles a byte at a time, says a huge length or never ends,
    until `stop` is set or the client hangs up (as it should: its deadline)."""
    if mode == "stall":
        stop.wait(600)
        return
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    if mode != "endless":
        handler.send_header("Content-Length", "500000000" if mode == "huge" else "100")
    handler.end_headers()
    piece, wait = (b"{", trickle) if mode == "trickle" else (b"0" * 65536, 0.0)
    try:
        while not stop.wait(wait):
            handler.wfile.write(piece)
            handler.wfile.flush()
    except OSError:  # the client hung up, as it should
        return


def _rows(mode: str, vectors: list[list[float]], served: int) -> list[dict[str, Any]]:
    """The answer's `data`, spoiled as `mode` says."""
    if mode in ("nan", "inf", "overflow"):
        vectors[0][0] = {"nan": float("nan"), "inf": float("inf"), "overflow": 1e39}[mode]
    if mode == "width" and served > 1:
        vectors = [v[:-1] for v in vectors]
    indices = list(range(len(vectors)))
    if mode == "zero-index":
        indices = [0] * len(vectors)
    if mode == "duplicate-index" and len(vectors) > 1:
        indices[-1] = 0
    rows = [{"object": "embedding", "index": i, "embedding": v}
            for i, v in zip(indices, vectors, strict=True)]  # fmt: skip
    return rows[::-1] if mode == "scrambled" else rows


def serve(state: State, port: int = 0) -> ThreadingHTTPServer:
    """A started server on 127.0.0.1 (port 0: a free one), serving in a daemon thread."""
    server = QuietServer(("127.0.0.1", port), handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    httpd = serve(State(MiniLMEmbedder.from_packages()), int(sys.argv[1]))
    print(f"serving on http://127.0.0.1:{httpd.server_address[1]}/v1", flush=True)
    threading.Event().wait()

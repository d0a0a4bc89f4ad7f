"""A fast deterministic OpenAI-compatible embeddings server: hashed word counts, no model.

Interrupt tests need an embedder slow enough to stop mid-run (`delay` seconds per
request) and the scale benchmark one so fast that only spanlab's own work is timed;
both need the same text to give the same vector in every process. Each word adds ±1 to
one of `dim` slots chosen by its crc32, so texts sharing words are near (retrieval still
means something) and nothing is downloaded. Run as a script: `python hash_server.py PORT
[DELAY] [DIM]`.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from tests.evaluator.quiet_http import QuietServer

WORD = re.compile(r"\w+")


def hashed(text: str, dim: int) -> list[float]:
    """The text's unit vector of signed hashed word counts (a fixed slot when it has none)."""
    row = np.zeros(dim, dtype=np.float64)
    for word in WORD.findall(text.lower()):
        h = zlib.crc32(word.encode("utf-8"))
        row[h % dim] += 1.0 if h & 0x80000000 else -1.0
    norm = float(np.linalg.norm(row))
    if norm == 0.0:
        row[0], norm = 1.0, 1.0
    return [round(float(v), 6) for v in row / norm]


class HashState:
    """What the handler shares: width, delay and a log of the batch sizes served."""

    def __init__(self, dim: int = 64, delay: float = 0.0, hold_after: int | None = None) -> None:
        self.dim = dim
        """Width of every vector."""
        self.delay = delay
        """Seconds each request waits before answering."""
        self.hold_after = hold_after
        """Once this many texts were served, every further request waits for `release` (at
        most a minute): a run is then surely mid-way when the test interrupts it, however
        loaded the machine is and however the client batches."""
        self.release = threading.Event()
        """Set to let held requests answer."""
        self.requests: list[int] = []
        """Texts in each request served."""
        self.lock = threading.Lock()


def handler(state: HashState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def do_POST(self) -> None:
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            texts = payload["input"] if isinstance(payload["input"], list) else [payload["input"]]
            time.sleep(state.delay)
            with state.lock:
                served = sum(state.requests)
                state.requests.append(len(texts))
                held = state.hold_after is not None and served >= state.hold_after
            if held:
                state.release.wait(timeout=60)
            data = [{"object": "embedding", "index": i, "embedding": hashed(t, state.dim)}
                    for i, t in enumerate(texts)]  # fmt: skip
            body = json.dumps({"object": "list", "data": data, "model": payload["model"]})
            raw = body.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    return Handler


def serve(state: HashState, port: int = 0) -> ThreadingHTTPServer:
    """A started server on 127.0.0.1 (port 0: a free one), serving in a daemon thread."""
    server = QuietServer(("127.0.0.1", port), handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    args = sys.argv[1:] + ["0", "0", "64"][len(sys.argv) - 1 :]
    httpd = serve(HashState(int(args[2]), float(args[1])), int(args[0]))
    print(f"serving on http://127.0.0.1:{httpd.server_address[1]}/v1", flush=True)
    threading.Event().wait()

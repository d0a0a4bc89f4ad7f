"""A real OpenAI-compatible embeddings server over the project's MiniLM, for the tests.

It speaks `POST /v1/embeddings` as OpenAI documents it (`{"model", "input"}` in,
`{"object": "list", "data": [{"object": "embedding", "index", "embedding"}], "model",
"usage"}` out), checks the bearer key when one is set, and can be told to fail its next
requests with a status (429 with Retry-After, 503) to exercise the client's retries.
Run as a script it serves on the port given: `python openai_server.py 8089`.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evaluator.embedding.minilm import MiniLMEmbedder


class State:
    """What the handler shares: the model, the key, failures to inject, a request log."""

    def __init__(self, model: MiniLMEmbedder, key: str = "") -> None:
        self.model = model
        """The embedder behind the API."""
        self.key = key
        """Required bearer key; empty accepts any request."""
        self.fail: list[int] = []
        """Statuses to answer the next requests with, in order."""
        self.requests: list[int] = []
        """Batch size of every request served (0 for a failed one)."""
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
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                fail = state.fail.pop(0) if state.fail else 0
            if fail:
                state.requests.append(0)
                return self._send(fail, {"error": {"message": "busy"}}, {"Retry-After": "0"})
            if state.key and self.headers.get("Authorization") != f"Bearer {state.key}":
                return self._send(401, {"error": {"message": "Incorrect API key"}}, {})
            if self.path != "/v1/embeddings":
                return self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
            texts = payload["input"] if isinstance(payload["input"], list) else [payload["input"]]
            vectors = state.model.embed(texts)
            state.requests.append(len(texts))
            data = [{"object": "embedding", "index": i, "embedding": v.tolist()}
                    for i, v in enumerate(vectors)]  # fmt: skip
            usage = {"prompt_tokens": 0, "total_tokens": 0}
            body = {"object": "list", "data": data, "model": payload["model"], "usage": usage}
            return self._send(200, body, {})

    return Handler


def serve(state: State, port: int = 0) -> ThreadingHTTPServer:
    """A started server on 127.0.0.1 (port 0: a free one), serving in a daemon thread."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    httpd = serve(State(MiniLMEmbedder.from_packages()), int(sys.argv[1]))
    print(f"serving on http://127.0.0.1:{httpd.server_address[1]}/v1", flush=True)
    threading.Event().wait()

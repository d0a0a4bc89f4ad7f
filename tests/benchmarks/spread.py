"""Benchmarks run several times in a row, each in a fresh process, and every headline figure
printed with its runs, their spread and how many runs met the target (§12: these machines
are noisy; a target holds when it holds in three runs in a row).

Run: python -m tests.benchmarks.spread [--runs 3] tests/benchmarks/bench_querylist.py ...
The benchmarks' own lines go to the terminal as they run; the table comes last.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.benchmarks.results import FIGURES, machine


def run(files: list[str], figures: Path) -> int:
    """One pytest run of `files`, its figures appended to `figures`; its exit code."""
    argv = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
            "-o", "python_files=bench_*.py", *files]  # fmt: skip
    return subprocess.run(argv, env={**os.environ, FIGURES: str(figures)}, check=False).returncode


def table(runs: list[list[dict[str, Any]]]) -> list[str]:
    """One line per figure: each run's value, the spread (max / min) and the target held."""
    order: list[str] = []
    by: dict[str, list[dict[str, Any]]] = {}
    for figures in runs:
        for f in figures:
            if f["figure"] not in by:
                order.append(f["figure"])
            by.setdefault(f["figure"], []).append(f)
    lines = []
    for name in order:
        found = by[name]
        values = [f["value"] for f in found]
        unit, limit = found[0]["unit"], found[0]["limit"]
        gap = "" if unit == "x" else " "
        shown = ", ".join(f"{v:.2f}{unit}" if unit == "x" else f"{v:.1f} {unit}" for v in values)
        spread = max(values) / min(values) if min(values) > 0 else float("inf")
        met = sum(v <= limit for v in values) if limit is not None else 0
        held = "" if limit is None else f" | ≤ {limit:g}{gap}{unit}: {met}/{len(values)}"
        lines.append(f"{name}: {shown} | spread {spread:.2f}x{held}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    runs, codes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.runs):
            figures = Path(tmp) / f"run-{n}.jsonl"
            figures.touch()
            codes.append(run(args.files, figures))
            lines = figures.read_text(encoding="utf-8").splitlines()
            runs.append([json.loads(x) for x in lines])
    print(f"\n[{args.runs} runs in a row; {machine()}]")
    print("\n".join(table(runs)))
    return max(codes)


if __name__ == "__main__":
    raise SystemExit(main())

"""Where a benchmark leaves its figures for the table (`bench_table`): with
SPANLAB_BENCH_RESULTS naming a folder, each benchmark writes NAME.json there beside its
printed lines, with the load average and the machine, so the docs' table is regenerated
from one run rather than copied by hand.
"""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any

ENV = "SPANLAB_BENCH_RESULTS"
"""The folder benchmarks write their figures to (unset: nothing is written)."""


def machine() -> dict[str, Any]:
    """The machine a figure was measured on, and how busy it was."""
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        found = [x for x in cpuinfo.read_text().splitlines() if x.startswith("model name")]
        model = found[0].split(":", 1)[1].strip() if found else ""
    return {"cpus": os.cpu_count(), "cpu": model or platform.processor(),
            "python": platform.python_version(), "load": round(os.getloadavg()[0], 1)}  # fmt: skip


def record(name: str, figures: dict[str, Any]) -> None:
    """Write `figures` (and the machine) as NAME.json in the results folder, when one is set."""
    folder = os.environ.get(ENV)
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    data = figures | {"machine": machine()}
    (Path(folder) / f"{name}.json").write_text(json.dumps(data, indent=1), encoding="utf-8")


FIGURES = "SPANLAB_BENCH_FIGURES"
"""A file each benchmark appends its headline figures to, one JSON line each (`spread`)."""


def note(figure: str, value: float, unit: str, limit: float | None = None) -> None:
    """Append one figure (and its target's limit: value ≤ limit) for `spread` to gather."""
    path = os.environ.get(FIGURES)
    if not path:
        return
    line = {"figure": figure, "value": value, "unit": unit, "limit": limit}
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def note_ms(figure: str, ms: float, target: str) -> None:
    """`note` a time whose target reads "≤ N ms" (any other target: noted without a limit)."""
    words = target.split()
    limited = len(words) == 3 and words[0] == "≤" and words[2] == "ms"
    note(figure, ms, "ms", float(words[1]) if limited else None)

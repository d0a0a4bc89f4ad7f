"""The §12 targets as a Markdown table, from the figures one benchmark run left in
SPANLAB_BENCH_RESULTS (`results.record`): the docs' benchmark table is printed, not typed.

Run: SPANLAB_BENCH_RESULTS=bench-out pytest tests/benchmarks/bench_eval.py
tests/benchmarks/bench_scale.py tests/benchmarks/bench_peer.py -o python_files='bench_*.py' -s,
then python -m tests.benchmarks.bench_table bench-out (the table), or with
`--readme README.md` the README's benchmark section rewritten between its markers.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Row = tuple[str, str, Callable[[dict[str, Any]], str | None]]
"""(target, its limit, the measured figure read from the results) for one line."""


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _demo(r: dict[str, Any]) -> dict[str, Any]:
    return dict(r.get("eval", {}).get("demo", {}))


def _scale(r: dict[str, Any], mb: float) -> dict[str, Any] | None:
    rows = r.get("scale", {}).get("rows", [])
    return next((x for x in rows if x["mb"] == mb), None)


def _ratio(r: dict[str, Any], key: str) -> str | None:
    rows = r.get("scale", {}).get("rows", [])
    if len(rows) < 2:
        return None
    first, last = rows[0], rows[-1]
    return f"{last[key] / first[key]:.2f}× ({first[key]:.0f} → {last[key]:.0f} MB, " + (
        f"{first['mb']:g} → {last['mb']:g} MB corpus)"
    )


def _peer(r: dict[str, Any], run: str) -> str | None:
    found = r.get("peer", {}).get("peer")
    if not found:
        return None
    return (f"{found[run] / found['peer']:.3f}× · {found[run + '_cpu'] / found['peer_cpu']:.3f}×"
            f" ({found[run]:.1f} s against {found['peer']:.1f} s)")  # fmt: skip


ROWS: list[Row] = [
    ("warm demo eval / its cold run (wall · CPU)", "≤ 10 %", lambda r: (
        f"{_pct(_demo(r)['warm'] / _demo(r)['cold'])} · "
        f"{_pct(_demo(r)['warm_cpu'] / _demo(r)['cold_cpu'])}") if _demo(r) else None),
    ("cold demo eval / embedding its texts alone (wall · CPU)", "≤ 1.25× (§12), 1.1× (issue)",
     lambda r: (f"{_demo(r)['cold'] / _demo(r)['alone']:.2f}× · "
                f"{_demo(r)['cold_cpu'] / _demo(r)['alone_cpu']:.2f}×") if _demo(r) else None),
    ("eval peak RSS, smallest → largest corpus", "≤ 1.2×", lambda r: _ratio(r, "rss_cold")),
    ("plan peak RSS, smallest → largest corpus", "≤ 1.2×", lambda r: _ratio(r, "plan_rss")),
    ("`spanlab plan` alone, CPU / cold eval CPU, largest corpus "
     "(hash embeddings: its eval embeds for nothing)",
     "— (the 2 % target is on the demo with MiniLM: `bench_plan.py`)", lambda r: (
        _pct(rows[-1]["plan_cpu"] / rows[-1]["cold_cpu"])
        if (rows := r.get("scale", {}).get("rows")) else None)),
    ("the plan inside a cold eval, CPU / the eval's CPU, each corpus (hash embeddings)",
     "≤ 2 %", lambda r: ", ".join(
        f"{x['mb']:g} MB {_pct(x['plan_in_cold_cpu'] / x['cold_cpu'])}"
        for x in r.get("scale", {}).get("rows", []) if "plan_in_cold_cpu" in x) or None),
    ("warm eval / the peer (chunking_evaluation), wall · CPU", "≤ 0.02×",
     lambda r: _peer(r, "warm")),
    ("cold eval / the peer, wall · CPU", "—", lambda r: _peer(r, "cold")),
]  # fmt: skip


def table(results: dict[str, Any]) -> str:
    """The Markdown table of every target the results measure, and the machine."""
    lines = ["| target | limit | measured |", "|---|---|---|"]
    for what, limit, read in ROWS:
        try:
            found = read(results)
        except (KeyError, ZeroDivisionError, TypeError):
            found = None
        lines.append(f"| {what} | {limit} | {found or 'not run'} |")
    machine = next((v["machine"] for v in results.values() if "machine" in v), None)
    if machine is not None:
        loads = ", ".join(f"{n} {float(v['machine']['load']):.1f}" for n, v in results.items()
                          if "machine" in v)  # fmt: skip
        lines += ["", f"Machine: {machine['cpus']} CPUs ({machine['cpu']}), Python "
                      f"{machine['python']}; load average at the end: {loads}."]  # fmt: skip
    return "\n".join(lines)


START = "<!-- benchmarks: written by tests/benchmarks/bench_table.py --readme; not by hand -->"
END = "<!-- benchmarks: end -->"
"""The README's benchmark section lies between these two lines."""
HEADING = "## Benchmarks"
COMMAND = ("SPANLAB_BENCH_RESULTS=bench-out pytest tests/benchmarks/bench_eval.py "
           "tests/benchmarks/bench_scale.py tests/benchmarks/bench_peer.py "
           "-o python_files='bench_*.py' -s\n"
           "python -m tests.benchmarks.bench_table bench-out --readme README.md")  # fmt: skip


def section(results: dict[str, Any]) -> str:
    """The README's section between the markers: how to measure, then the table."""
    return "\n".join([START, "", "The design's targets, measured in one run (figures beside "
                       "their baseline, so a busy machine stretches both):", "", "```sh",
                       COMMAND, "```", "", table(results), "", END])  # fmt: skip


def rewrite(readme: str, results: dict[str, Any]) -> str:
    """`readme` with its benchmark section replaced (placed before `## Documentation` with its
    heading when it has none yet); the rest of the text as it was."""
    if START in readme and END in readme:
        head, rest = readme.split(START, 1)
        return head + section(results) + rest.split(END, 1)[1]
    at = readme.find("## Documentation")
    at = len(readme) if at < 0 else at
    return readme[:at] + f"{HEADING}\n\n{section(results)}\n\n" + readme[at:]


def read(folder: Path) -> dict[str, Any]:
    """Every NAME.json in the results folder, by NAME."""
    return {p.stem: json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("*.json"))}


if __name__ == "__main__":
    found = read(Path(sys.argv[1]))
    if sys.argv[2:3] == ["--readme"]:
        target = Path(sys.argv[3])
        target.write_text(rewrite(target.read_text("utf-8"), found), "utf-8")
    else:
        print(table(found))

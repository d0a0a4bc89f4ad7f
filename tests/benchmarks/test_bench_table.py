"""The docs' benchmark table is printed from the figures a benchmark run recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmarks.bench_table import read, table
from tests.benchmarks.results import ENV, record


def test_the_table_reads_what_the_benchmarks_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, str(tmp_path))
    demo = {"alone": 100.0, "alone_cpu": 50.0, "cold": 120.0, "cold_cpu": 60.0, "warm": 10.0,
            "warm_cpu": 4.0}  # fmt: skip
    record("eval", {"demo": demo})
    rows = [{"mb": 1.0, "rss_cold": 200.0, "plan_rss": 150.0, "plan_cpu": 1.0, "cold_cpu": 100.0},
            {"mb": 12.0, "rss_cold": 230.0, "plan_rss": 160.0, "plan_cpu": 1.5,
             "cold_cpu": 200.0}]  # fmt: skip
    record("scale", {"rows": rows})
    assert json.loads((tmp_path / "eval.json").read_text())["machine"]["cpus"] >= 1
    lines = table(read(tmp_path)).splitlines()
    assert lines[2] == "| warm demo eval / its cold run (wall · CPU) | ≤ 10 % | 8.3% · 6.7% |"
    assert lines[3].endswith("| 1.20× · 1.20× |")
    assert lines[4].endswith("| 1.15× (200 → 230 MB, 1 → 12 MB corpus) |")
    assert lines[5].endswith("| 1.07× (150 → 160 MB, 1 → 12 MB corpus) |")
    assert lines[6].endswith("| 0.8% |")
    assert lines[-1].startswith("Machine: ")


def test_a_target_no_benchmark_measured_says_not_run(tmp_path: Path) -> None:
    assert table(read(tmp_path)).splitlines()[2].endswith("| not run |")

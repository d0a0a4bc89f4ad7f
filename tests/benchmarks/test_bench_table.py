"""The docs' benchmark table is printed from the figures a benchmark run recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmarks.bench_table import END, START, read, rewrite, table
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


def test_the_readme_section_is_placed_once_then_rewritten_between_its_markers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, str(tmp_path))
    readme = "# spanlab\n\n## A tour\n\nText.\n\n## Documentation\n\nMore.\n"
    first = rewrite(readme, read(tmp_path))  # nothing measured yet
    assert first.index("## Benchmarks") < first.index(START) < first.index("## Documentation")
    assert "| warm demo eval / its cold run (wall · CPU) | ≤ 10 % | not run |" in first
    record("peer", {"peer": {"peer": 100.0, "peer_cpu": 80.0, "cold": 50.0, "cold_cpu": 40.0,
                             "warm": 1.5, "warm_cpu": 1.2}})  # fmt: skip
    second = rewrite(first, read(tmp_path))
    assert second.count(START) == second.count(END) == second.count("## Benchmarks") == 1
    assert "| ≤ 0.02× | 0.015× · 0.015× (1.5 s against 100.0 s) |" in second
    assert second.split(START)[0] == first.split(START)[0]  # the rest as it was
    assert second.split(END)[1] == first.split(END)[1] == "\n\n## Documentation\n\nMore.\n"
    assert rewrite(second, read(tmp_path)) == second  # the same figures: the same text

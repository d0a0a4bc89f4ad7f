"""The spread table: each figure's runs in order, largest over smallest, runs on target."""

from __future__ import annotations

from tests.benchmarks.spread import table


def test_the_table_gives_runs_spread_and_runs_on_target() -> None:
    runs = [
        [{"figure": "push", "value": 1.5, "unit": "x", "limit": 2},
         {"figure": "ready", "value": 800.0, "unit": "ms", "limit": 1000}],
        [{"figure": "push", "value": 2.5, "unit": "x", "limit": 2},
         {"figure": "ready", "value": 400.0, "unit": "ms", "limit": 1000}],
        [{"figure": "push", "value": 1.25, "unit": "x", "limit": 2}],
    ]  # fmt: skip
    assert table(runs) == [
        "push: 1.50x, 2.50x, 1.25x | spread 2.00x | ≤ 2x: 2/3",
        "ready: 800.0 ms, 400.0 ms | spread 2.00x | ≤ 1000 ms: 2/2",
    ]

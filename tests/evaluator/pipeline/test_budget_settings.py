"""The budget and the deciding basis, declared from the chunking alone; cost gates per
pattern; latency passes in a seeded order (§17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.candidate_gates import Gates
from evaluator.candidates import LADDER, Settings, read
from evaluator.metrics.compare import compare
from evaluator.metrics.evaluate import evaluate
from evaluator.metrics.stats import IndexStats
from evaluator.pipeline.budget import Sized, declare
from evaluator.pipeline.gates import Costs, check
from evaluator.pipeline.latency import orders
from labeler.core.errors import ConfigError
from tests.evaluator.metrics.fixtures import C1, C2, C3, C4, INDEX, Q1, SETTINGS, TEXTS, ranked
from tests.evaluator.pipeline.test_candidates import GOOD, write


def _sized(mean: float, least: int = 1) -> Sized:
    return Sized(IndexStats(10, 100, int(mean * 10), mean, least), least)


def test_the_default_budget_is_k_times_the_baselines_mean_chunk_tokens() -> None:
    settings, note = declare(Settings("a", k=5), {"a": _sized(121.48), "b": _sized(130.0)})
    assert settings.budget == 608  # 5 × 121.48 = 607.4, rounded up as the plan does
    assert note["budget_from"] == "default"
    assert note["budget_rule"] == (
        "k × a's mean chunk tokens = 5 × 121.48, rounded up to a whole token"
    )
    assert note["crossing_chunk"] == "left out"


@pytest.mark.parametrize(
    ("means", "decide"),
    [((100.0, 110.0), "k"), ((100.0, 110.5), "budget"), ((100.0, 50.0), "budget")],
)
def test_budget_decides_when_mean_chunk_sizes_differ_by_more_than_ten_percent(
    means: tuple[float, float], decide: str
) -> None:
    settings, note = declare(Settings("a"), {"a": _sized(means[0]), "b": _sized(means[1])})
    assert settings.decide == decide
    spread = round(max(means) / min(means) - 1, 4)
    assert (note["decide_from"], note["size_spread"]) == ("default", spread)


def test_a_declared_budget_and_basis_are_kept() -> None:
    settings, note = declare(Settings("a", budget=300, decide="k"),
                             {"a": _sized(100.0), "b": _sized(300.0)})  # fmt: skip
    assert (settings.budget, settings.decide) == (300, "k")
    assert note["budget_from"] == note["decide_from"] == "settings"


def test_a_budget_below_every_chunk_of_a_candidate_is_refused() -> None:
    with pytest.raises(ConfigError) as info:
        declare(Settings("a", budget=40), {"a": _sized(60.0, 20), "b": _sized(90.0, 41)})
    assert info.value.key == "settings.budget"
    assert info.value.message == (
        "budget 40 is smaller than every chunk of candidate 'b' (its smallest holds 41 tokens)"
    )


def test_the_candidates_file_reads_the_budget_settings(tmp_path: Path) -> None:
    extra = 'k = 3\nbudget = 256\ndecide = "k"\nbudget_ladder = [512, 64, 64]\nlatency_repeats = 2'
    cfile = read(write(tmp_path, GOOD.replace("k = 3", extra)
                       + "[gates.pattern.control]\nmax_prompt_tokens_ratio = 1.2\n"))  # fmt: skip
    s = cfile.settings
    assert (s.budget, s.decide, s.budget_ladder, s.latency_repeats) == (256, "k", (64, 512), 2)
    assert cfile.gates.patterns == {"control": {"max_prompt_tokens_ratio": 1.2}}
    plain = read(write(tmp_path, GOOD)).settings
    assert (plain.budget, plain.decide, plain.budget_ladder) == (None, None, LADDER)


def test_cost_gates_read_prompt_tokens_per_pattern_and_index_figures() -> None:
    query = Q1  # top 2: C1 + C2 = 40 characters against C4 + C3 = 50
    small = evaluate([query], {query.id: ranked(C1, C2)}, INDEX, settings=SETTINGS, texts=TEXTS,
                     count_tokens=len, name="base")  # fmt: skip
    big = evaluate([query], {query.id: ranked(C4, C3)}, INDEX, settings=SETTINGS, texts=TEXTS,
                   count_tokens=len, name="cand")  # fmt: skip
    comps = {"cand": compare(small, big, resamples=10)}
    ratio = 50 / 40
    pattern = str(query.boundary)
    gates = Gates({"max_prompt_tokens_ratio": ratio - 0.01, "max_latency_p95_ratio": 2.0},
                  patterns={pattern: {"max_prompt_tokens_ratio": ratio}})  # fmt: skip
    costs = Costs({"base": {"query_latency_p95_ms": 4.0}, "cand": {"query_latency_p95_ms": 9.0}},
                  {"base": small, "cand": big})  # fmt: skip
    found = {(g.scope, g.gate): (g.value, g.passed) for g in check(gates, comps, {}, costs)}
    assert found[("overall", "max_prompt_tokens_ratio")] == (ratio, False)
    assert found[(f"pattern:{pattern}", "max_prompt_tokens_ratio")] == (ratio, True)
    assert found[("overall", "max_latency_p95_ratio")] == (2.25, False)


def test_latency_orders_are_shuffled_by_the_seed_and_reproducible() -> None:
    names = ["a", "b", "c", "d"]
    first = orders(names, 5, seed=7)
    assert first == orders(names, 5, seed=7)
    assert all(sorted(o) == names for o in first)
    assert len({tuple(o) for o in first}) > 1  # not one fixed order
    assert first != orders(names, 5, seed=8)

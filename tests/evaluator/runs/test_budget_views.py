"""run.json keeps every measure at budget (§17) and reads a run written before budgets
were kept as it was: at k only, with no budget in any header."""

from __future__ import annotations

from typing import Any

from evaluator.pipeline.record import run_file
from evaluator.runs.budget_text import budget_md, flags
from evaluator.runs.model import RunFile
from evaluator.runs.report import report_md
from evaluator.runs.verdict_words import settings_line
from tests.evaluator.runs.conftest import SmallRun

NEW_KEYS = ("comparisons_at_budget", "gates_other_basis")
CANDIDATE_KEYS = ("metrics_at_budget", "metrics_at_budget_other_rule", "budget_curve")
SETTINGS_KEYS = ("budget", "decide", "budget_ladder", "latency_repeats")


def _older(data: dict[str, Any]) -> dict[str, Any]:
    """The same run as a spanlab before issue 29 wrote it."""
    for key in NEW_KEYS:
        del data[key]
    for cand in data["candidates"].values():
        for key in CANDIDATE_KEYS:
            del cand[key]
    del data["manifest"]["context_budget"]
    for key in SETTINGS_KEYS:
        del data["manifest"]["settings"][key]
    return data


def test_every_measure_is_kept_at_budget_and_reads_back(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=False)
    data = run.to_json()
    assert set(NEW_KEYS) <= set(data)
    for cand in data["candidates"].values():
        assert set(cand["metrics_at_budget"]) >= {"evidence_recall@k", "prompt_tokens@k"}
        assert cand["budget_curve"]["budgets"] == [128, 256, 512, 1024, 2048, 4096]
    again = RunFile.from_json(data, file="run.json")
    assert again.budget == run.budget == data["manifest"]["context_budget"]["budget"]
    assert again.at_budget and again.decide == run.decide


def test_a_run_written_before_budgets_reads_at_k_only(small_run: SmallRun) -> None:
    data = _older(run_file(small_run.result, include_text=False).to_json())
    run = RunFile.from_json(data, file="run.json")
    assert (run.budget, run.decide, run.at_budget) == (None, "k", False)
    assert "budget" not in settings_line(run)
    assert flags(run) == []
    assert budget_md(run) == [
        "_This run was written before context budgets were kept: only k is recorded._"
    ]
    assert "## At k and at budget" not in report_md(run)
    written = run.to_json()  # a setting added since reads (and is written) as its default
    assert {k: written["manifest"]["settings"].pop(k) for k in SETTINGS_KEYS} == {
        "budget": None, "decide": None, "budget_ladder": [128, 256, 512, 1024, 2048, 4096],
        "latency_repeats": 3,
    }  # fmt: skip
    assert written == data


def test_a_sign_flip_of_delta_recall_is_flagged_with_no_gate_declared(small_run: SmallRun) -> None:
    from evaluator.runs.budget_text import flag

    data = run_file(small_run.result, include_text=False).to_json()
    data["gates"], data["gates_other_basis"] = [], []  # no gate: both verdicts PASS
    data["comparisons"]["c30"]["overall"]["deltas"]["evidence_recall@k"] = 0.05
    data["comparisons_at_budget"]["c30"]["overall"]["deltas"]["evidence_recall@k"] = -0.04
    run = RunFile.from_json(data, file="run.json")
    budget = run.budget
    said = flag(run, "c30")
    assert said is not None
    assert said.startswith(f"Δ recall +0.050 at k = 2, -0.040 at budget {budget:,}: ahead at k = 2")
    decides = run.decide
    pair = " · ".join(f"PASS at {w}" + (" (decides)" if b == decides else "")
                      for b, w in (("k", "k = 2"), ("budget", f"budget {budget:,}")))  # fmt: skip
    assert flags(run) == [f"c30: {pair} — {said}"]
    data["comparisons_at_budget"]["c30"]["overall"]["deltas"]["evidence_recall@k"] = 0.01
    assert flag(RunFile.from_json(data, file="run.json"), "c30") is None  # same sign: no flag


def test_no_cell_at_budget_sits_under_an_at_k_label(small_run: SmallRun) -> None:
    """Cells `at k · at budget` are labelled by the measure alone: `recall`, never
    `recall@k`, in report.md's measures table and the terminal's budget table."""
    from evaluator.runs.budget_text import budget_table, measures_md

    run = run_file(small_run.result, include_text=False)
    rows = [line.split(" | ") for line in measures_md(run) if " · " in line]
    assert [r[0] for r in rows][:3] == ["| recall", "| hit", "| doc hit"]
    assert not [r[0] for r in rows if "@k" in r[0]]
    headers = [str(c.header) for c in budget_table(run).columns]
    assert headers == ["candidate", "recall", "hit", "prompt tok", "Δ recall", "verdict"]


def test_unique_evidence_at_k_and_at_budget_is_a_count_of_groups(small_run: SmallRun) -> None:
    """Not the per-query mean (a share-looking 1.333): `4/4 groups · 3/4 groups`."""
    from evaluator.runs.budget_text import measures_md
    from evaluator.runs.review_view import unique_count

    run = run_file(small_run.result, include_text=False)
    rows = [line for line in measures_md(run) if line.startswith("| unique evid |")]
    assert len(rows) == 2  # under each rule
    c30 = run.candidate("c30")
    at_k = unique_count(run, c30.metric_at("unique_evidence@k", budget=False))
    at_b = unique_count(run, c30.metric_at("unique_evidence@k", budget=True))
    assert at_k.endswith(" groups") and f" {at_k} · {at_b} " in rows[0]

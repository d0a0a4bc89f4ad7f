"""Cost gates against a stored run (§16, §17): `gate --against RUN` judges prompt tokens,
chunks and latency against the stored run's own figures; where the stored run has none (a
run.json written before latency was measured), the gate says it cannot be evaluated and
fails: a missing figure never reads as a kept limit.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from evaluator.candidates import Gates
from evaluator.pipeline.gates import Costs, check
from evaluator.runs.gate_text import gate_line
from evaluator.runs.model import read_run, read_run_file, write_run_file
from evaluator.runs.model_parts import GateRecord
from evaluator.runs.report import report_md
from tests.cli.test_ci import ci_folder as ci_folder  # the fixture
from tests.cli.test_ci import gate

COSTS = "max_lost = 0\nmax_chunk_count_ratio = 10\nmax_prompt_tokens_ratio = 10\n" + (
    "max_latency_p95_ratio = 100\n"
)
"""Every cost gate but vector bytes (a lexical run stores no vectors), with limits the
pull request keeps whatever the machine's speed."""
LATENCY = "query_latency_p95_ms"
"""The figure a run written before latency was measured lacks."""


def main_artifact(folder: Path, *, drop: tuple[str, ...] = ()) -> tuple[Path, str]:
    """main's run kept as a CI artifact (each candidate's `drop` figures taken out, as an
    older run.json lacks them); the folder and the run's id."""
    text = (folder / "candidates.toml").read_text("utf-8")
    (folder / "candidates.toml").write_text(text.replace("max_lost = 0\n", COSTS), "utf-8")
    code, out, err = gate()
    assert code == 1, out + err  # c30 loses a query against the baseline; c60 holds
    kept = folder / "main-run"
    shutil.copytree(sorted((folder / ".spanlab" / "runs").iterdir())[-1], kept)
    data = json.loads((kept / "run.json").read_text("utf-8"))
    for cand in data["candidates"].values():
        for name in drop:
            del cand["metrics"][name]
    (kept / "run.json").write_text(json.dumps(data), "utf-8")
    return kept, read_run(kept).id


def against_lines(out: str, rid: str) -> dict[str, str]:
    """Gate -> its line against the stored run, for c60's overall gates."""
    head = f"c60 against {rid}  overall  "
    return {line.split(head)[1].split(":")[0]: line for line in out.splitlines() if head in line}


def test_cost_gates_are_judged_against_the_stored_runs_own_figures(ci_folder: Path) -> None:
    kept, rid = main_artifact(ci_folder)
    code, out, err = gate("--candidate", "c60", "--against", str(kept))
    assert code == 0, out + err
    found = against_lines(out, rid)
    assert sorted(found) == [
        "max_chunk_count_ratio", "max_latency_p95_ratio", "max_lost", "max_prompt_tokens_ratio",
    ]  # fmt: skip
    prefix = f"pass  c60 against {rid}  overall  "
    assert found["max_chunk_count_ratio"] == (
        f"{prefix}max_chunk_count_ratio: 1.00 × the baseline's chunks at k = 2, limit 10.00"
    )
    assert found["max_prompt_tokens_ratio"] == (
        f"{prefix}max_prompt_tokens_ratio: 1.00 × the baseline's prompt tokens at k = 2, "
        "limit 10.00"
    )
    assert found["max_latency_p95_ratio"].startswith(f"{prefix}max_latency_p95_ratio: ")
    assert "no data" not in out and "cannot be evaluated" not in out


def test_a_stored_run_without_latency_fails_the_latency_gate_and_says_why(
    ci_folder: Path,
) -> None:
    kept, rid = main_artifact(ci_folder, drop=(LATENCY,))
    code, out, err = gate("--candidate", "c60", "--against", str(kept))
    assert code == 1, out + err
    found = against_lines(out, rid)
    assert found["max_latency_p95_ratio"] == (
        f"FAIL  c60 against {rid}  overall  max_latency_p95_ratio: cannot be evaluated "
        f"({rid}:c60 has no warm p95 latency): fails until both runs have it, limit 100.00"
    )
    assert found["max_chunk_count_ratio"].startswith("pass  ")  # the rest are judged
    assert out.splitlines()[0] == (
        f"FAIL  gates broken by c60 (against {rid}) (against the baseline and the stored run)"
    )
    assert f"FAIL  against stored run {rid}" in out


def test_a_stored_run_without_chunk_counts_fails_that_gate_not_divides_by_zero(
    ci_folder: Path,
) -> None:
    kept, rid = main_artifact(ci_folder, drop=("chunk_count",))
    code, out, err = gate("--candidate", "c60", "--against", str(kept))
    assert code == 1, out + err
    assert against_lines(out, rid)["max_chunk_count_ratio"] == (
        f"FAIL  c60 against {rid}  overall  max_chunk_count_ratio: cannot be evaluated "
        f"({rid}:c60 has no chunk count): fails until both runs have it, limit 10.00"
    )


def test_a_gate_that_cannot_be_evaluated_is_kept_in_run_json_with_its_reason() -> None:
    """The same rule in a run's own gates: the baseline without a latency (a retriever that
    was not timed) fails the candidate's latency gate, and run.json keeps why."""
    missing = GateRecord("c60", "overall", "max_latency_p95_ratio", 2.0, None, False,
                         "cannot be evaluated (c40 has no warm p95 latency): fails until "
                         "both runs have it")  # fmt: skip
    data = missing.to_json()
    assert data["unavailable"] == missing.unavailable and data["passed"] is False
    kept = GateRecord("c60", "overall", "max_lost", 0.0, 0.0, True)
    assert "unavailable" not in kept.to_json()  # a run.json as before when every gate judged
    assert gate_line(missing) == (
        "overall  max_latency_p95_ratio: cannot be evaluated (c40 has no warm p95 latency): "
        "fails until both runs have it, limit 2.00"
    )


def test_check_fails_closed_on_a_missing_or_zero_baseline_figure(ci_folder: Path) -> None:
    kept, _ = main_artifact(ci_folder)
    run = read_run(kept)
    comps = {name: run.comparisons[name] for name in run.others}
    gates = Gates({"max_latency_p95_ratio": 2.0})
    figures = {n: dict(run.candidate(n).metrics) for n in run.names}
    figures[run.baseline.name][LATENCY] = 0.0
    found = check(gates, comps, {}, Costs(figures, {}))
    base = run.baseline.name
    assert [(g.candidate, g.passed, g.unavailable) for g in found] == [
        (n, False, f"cannot be evaluated ({base}'s warm p95 latency is 0): fails until both "
                   "runs have it") for n in run.others
    ]  # fmt: skip
    del figures[base][LATENCY]
    found = check(gates, comps, {}, Costs(figures, {}))
    assert {g.unavailable for g in found} == {
        f"cannot be evaluated ({base} has no warm p95 latency): fails until both runs have it"
    }


def test_run_json_and_report_md_keep_why_a_gate_could_not_be_evaluated(ci_folder: Path) -> None:
    kept, _ = main_artifact(ci_folder)
    run = read_run(kept)
    why = "cannot be evaluated (c40 has no warm p95 latency): fails until both runs have it"
    missing = GateRecord("c60", "overall", "max_latency_p95_ratio", 2.0, None, False, why)
    changed = dataclasses.replace(run, gates=(missing,))
    write_run_file(changed, ci_folder / "again.json")
    assert read_run_file(ci_folder / "again.json").gates == (missing,)
    assert (
        f"| `c60` | overall | max_latency_p95_ratio | {why} | 2.00 | **FAIL** |"
        in report_md(changed).splitlines()
    )

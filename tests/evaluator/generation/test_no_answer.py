"""A generation stage that measured nothing fails closed (§23): the loopback server failing
every prompt through `spanlab eval` and `spanlab gate` with no `[gates.generation]` — exit 1,
the candidate and the failure kinds named in the terminal, report.md, run.json and junit —
while partial failure is counted, and gated only by a declared `max_failed`.

Every generation gate of such a run is then recomputed from its folder alone
(generation.jsonl and the candidates file, read with json and tomllib), and a run written
before the `answered` check (no such record) still reads, verifies and diffs.
"""

from __future__ import annotations

import json
import time
import tomllib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evaluator.generation.run_file import AnswerRecord
from evaluator.pipeline.answer_gates import asking_gates
from evaluator.runs.model import read_run
from evaluator.runs.model_parts import GateRecord
from labeler.cli import app
from labeler.tui.triage.model import RunView
from labeler.tui.triage.widgets import GatesPanel
from tests.conftest import write_corpus
from tests.evaluator.generation.chat_server import State, serve
from tests.evaluator.generation.test_eval_cli import TEMPLATE, TEXT, UNGATED, labels

CANDS = UNGATED
HAD = ("answered", "refused")


@pytest.fixture
def server() -> Iterator[State]:
    state = State()
    state.mode = "extractive"
    http = serve(state)
    state.url = f"http://127.0.0.1:{http.server_address[1]}/v1"  # type: ignore[attr-defined]
    yield state
    state.stop.set()
    http.shutdown()
    http.server_close()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: State) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"p.md": TEXT})
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    (tmp_path / "labels.json").write_text(json.dumps(labels()))
    (tmp_path / "answer.txt").write_text(TEMPLATE)
    (tmp_path / "answer.txt").chmod(0o644)
    (tmp_path / "cands.toml").write_text(CANDS.format(url=server.url))  # type: ignore[attr-defined]
    return tmp_path


def run_cli(root: Path, *args: str) -> tuple[int, str, str, Path]:
    time.sleep(0.001)  # run ids are by the microsecond
    done = CliRunner().invoke(app, [*args, "cands.toml", "--labels", "labels.json"],
                              env={"COLUMNS": "200"})  # fmt: skip
    assert "Traceback" not in done.output, done.output
    folder = max((root / ".spanlab/runs").iterdir())
    return done.exit_code, done.stdout, done.stderr, folder


def failing(folder: Path) -> list[GateRecord]:
    return [g for g in read_run(folder).gates if not g.passed]


NONE_ANSWERED = [
    ("bad-json", "a had no answer: bad JSON 3", "b had no answer: not asked 3"),
    ("stall", "a had no answer: not asked 2, timeout 1", "b had no answer: not asked 3"),
    ("no-choices", "a had no answer: bad shape 3", "b had no answer: not asked 3"),
]


@pytest.mark.parametrize(("mode", "base", "cand"), NONE_ANSWERED, ids=[c[0] for c in NONE_ANSWERED])
def test_eval_fails_when_a_candidate_has_no_answer(
    project: Path, server: State, mode: str, base: str, cand: str
) -> None:
    """No `[gates.generation]`: before, exit 0 and `passed: true`; now exit 1, each candidate
    (the baseline first) named with its failure kinds, everywhere the verdict is written."""
    server.mode = mode
    code, out, err, folder = run_cli(project, "eval")
    assert code == 1, out + err
    assert f"FAIL  generation: {base}\nFAIL  generation: {cand}\n" in err
    assert "gates  FAIL (2 broken)" in out and "FAIL  a (baseline)" in out and "FAIL  b" in out
    assert f"a  generation  answered: {base}, limit 1" in out
    run = read_run(folder)
    assert run.passed is False and run.gated == ["a", "b"]
    assert failing(folder) == [
        GateRecord("a", "generation", "answered", 1.0, None, False, base),
        GateRecord("b", "generation", "answered", 1.0, None, False, cand),
    ]
    raw = json.loads((folder / "run.json").read_text())
    assert raw["passed"] is False and raw["gates"][0] == {
        "candidate": "a", "scope": "generation", "gate": "answered", "limit": 1.0,
        "value": None, "passed": False, "unavailable": base}  # fmt: skip
    report = (folder / "report.md").read_text()
    assert "— **FAIL**" in report.splitlines()[0]
    assert "`a` (baseline) **FAIL** · `b` **FAIL**" in report
    assert f"| `a` | generation | answered | {base} | 1 | **FAIL** |" in report
    junit = (folder / "junit.xml").read_text()
    assert '<testsuite name="a" time=' in junit and 'failures="2"' in junit.splitlines()[1]
    assert f'name="generation.answered" time="0">\n      <failure type="gate" ' \
           f'message="generation  answered: {base}, limit 1"' in junit  # fmt: skip


def test_gate_fails_on_an_unanswered_baseline_whichever_candidate_is_judged(
    project: Path, server: State
) -> None:
    server.mode = "bad-json"
    code, out, err, _ = run_cli(project, "gate", "--candidate", "b")
    assert code == 1, out + err
    assert out.startswith("FAIL  gates broken by a (baseline), b (against the baseline)\n")
    assert "FAIL  a  generation  answered: a had no answer: bad JSON 3, limit 1" in out
    assert "FAIL  a\nFAIL  b\n" in out
    assert "gates broken by: a (baseline), b" in err


def test_an_unreachable_server_fails_the_run(project: Path, server: State) -> None:
    """Nothing listens at the URL: one `unreachable`, and asking stops there."""
    dead = "http://127.0.0.1:9/v1"  # the discard port: nothing listens on loopback
    cands = (project / "cands.toml").read_text().replace(server.url, dead)  # type: ignore[attr-defined]
    (project / "cands.toml").write_text(cands)
    code, out, err, folder = run_cli(project, "eval")
    assert code == 1, out + err
    assert "FAIL  generation: a had no answer: not asked 2, unreachable 1" in err
    assert [g.unavailable for g in failing(folder)] == [
        "a had no answer: not asked 2, unreachable 1",
        "b had no answer: not asked 3",
    ]


def test_partial_failure_is_counted_and_gated_only_by_max_failed(
    project: Path, server: State
) -> None:
    """One prompt of six refused with a 400: every candidate has answers, so eval passes and
    says the failure; `max_failed` then judges each candidate's share, the baseline's too."""
    server.fail = [400]
    code, out, err, folder = run_cli(project, "eval")
    assert code == 0, out + err
    assert "answers: 5 asked, 0 from the cache, 0 refused, 1 failed (HTTP error 1)" in out
    gates = read_run(folder).gates
    assert [(g.candidate, g.gate, g.value, g.passed) for g in gates] == [
        ("a", "answered", 2.0, True),
        ("b", "answered", 3.0, True),
    ]
    with (project / "cands.toml").open("a") as f:
        f.write("\n[gates.generation]\nmax_failed = 0.2\n")
    server.fail = [400]
    code, out, err, folder = run_cli(project, "gate")
    assert code == 1, out + err  # the answers of the first run are cached: the 400 is new
    assert "FAIL  a  generation  max_failed: 33.3% of its prompts without an answer at budget " \
           "60, limit 20.0%" in out  # fmt: skip
    assert "pass  b  generation  max_failed: 0.0% of its prompts" in out
    assert "gates broken by: a (baseline)" in err
    assert recomputed(folder) == generation_gates(folder)


@pytest.mark.parametrize(("value", "said"), [
    ("5", "error: cands.toml, key gates.generation.max_failed: gates.generation: max_failed must "
          "be a share of a candidate's prompts from 0 to 1 (0.05: at most 5 % without an "
          "answer), not 5\n"),
    ("-0.1", "key gates.generation.max_failed: gates.generation: max_failed must be a share"),
    ('"few"', "error: cands.toml, key max_failed: gates.generation: max_failed must be a number"),
])  # fmt: skip
def test_a_bad_max_failed_is_refused_naming_the_key(project: Path, value: str, said: str) -> None:
    with (project / "cands.toml").open("a") as f:
        f.write(f"\n[gates.generation]\nmax_failed = {value}\n")
    done = CliRunner().invoke(app, ["eval", "cands.toml", "--labels", "labels.json"])
    assert done.exit_code == 2 and said in done.stderr, done.output
    assert "Traceback" not in done.output and not (project / ".spanlab/runs").exists()


def records(name: str, *outcomes: str) -> list[AnswerRecord]:
    return [AnswerRecord(f"q-{i:04d}", name, o, False, (), "", (), (), (), ())
            for i, o in enumerate(outcomes)]  # fmt: skip


def test_the_answered_check_names_the_failures_most_first() -> None:
    failed = records("markdown-200", *["bad JSON"] * 2, *["timeout"] * 40)
    assert asking_gates("markdown-200", failed, {"max_failed": 0.5}) == [
        GateRecord("markdown-200", "generation", "answered", 1.0, None, False,
                   "markdown-200 had no answer: timeout 40, bad JSON 2"),
        GateRecord("markdown-200", "generation", "max_failed", 0.5, 1.0, False),
    ]  # fmt: skip
    some = records("c", "refused", "timeout", "answered", "not asked")
    assert [(g.gate, g.value, g.passed) for g in asking_gates("c", some, {"max_failed": 0.5})] == [
        ("answered", 2.0, True), ("max_failed", 0.5, True)]  # a refusal is an answer  # fmt: skip
    assert asking_gates("c", [], {"max_failed": 0.0}) == []  # sent nothing: nothing to judge


# -- the verdict again, from the run folder alone ------------------------------------------


def generation_gates(folder: Path) -> list[tuple[Any, ...]]:
    """run.json's records of the answers' gates as a whole (scope `generation`)."""
    raw = json.loads((folder / "run.json").read_text())
    return [tuple(g.values()) for g in raw["gates"] if g["scope"] == "generation"]


def recomputed(folder: Path, cands: Path | None = None) -> list[tuple[Any, ...]]:
    """The `answered` check and `max_failed` written again from generation.jsonl and the
    candidates file: per candidate that sent prompts, at least one answer (else the kinds of
    failure, most first), and the share without one against the declared limit. A run.json
    without any `answered` record predates the check: only `max_failed` is its to hold."""
    raw = json.loads((folder / "run.json").read_text())
    lines = (folder / "generation.jsonl").read_text().splitlines()[1:]
    outcomes: dict[str, list[str]] = {}
    for line in lines:
        record = json.loads(line)
        outcomes.setdefault(record["candidate"], []).append(record["outcome"])
    path = cands or folder.parents[2] / "cands.toml"
    limits = tomllib.loads(path.read_text()).get("gates", {}).get("generation", {})
    checked = any(g["gate"] == "answered" for g in raw["gates"])
    out: list[tuple[Any, ...]] = []
    for name in raw["candidates"]:
        found = outcomes.get(name, [])
        had = sum(o in HAD for o in found)
        if found and checked:
            if had:
                out.append((name, "generation", "answered", 1.0, float(had), True))
            else:
                kinds = Counter(o for o in found if o not in HAD)
                words = ", ".join(
                    f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
                )
                out.append((name, "generation", "answered", 1.0, None, False,
                            f"{name} had no answer: {words}"))  # fmt: skip
        if found and "max_failed" in limits:
            share = (len(found) - had) / len(found)
            limit = float(limits["max_failed"])
            out.append((name, "generation", "max_failed", limit, share, share <= limit))
    return out


def test_the_failed_run_is_recomputed_from_its_folder(project: Path, server: State) -> None:
    """…and triage's gates panel of candidate b names the baseline's failure beside its own."""
    server.mode = "bad-json"
    _, _, _, folder = run_cli(project, "eval")
    assert recomputed(folder) == generation_gates(folder)
    raw = json.loads((folder / "run.json").read_text())
    assert raw["passed"] is all(g["passed"] for g in raw["gates"]) is False
    panel = GatesPanel()
    panel.show(RunView(read_run(folder)), "b")
    assert str(panel.render()) == (
        "gates at budget 60\n✗ answered no answer ≥1\n✗ baseline answered no answer ≥1"
    )


def test_a_run_written_before_the_check_still_reads_verifies_and_diffs(
    project: Path, server: State
) -> None:
    """An older run.json holds no `answered` record (and passed with no gates): it reads as
    it was written, its generation gates recompute as it declared them, and `diff` against
    a new run that measured nothing says why the answers are not compared."""
    server.mode = "bad-json"
    _, _, _, bad = run_cli(project, "eval")
    server.mode = "extractive"  # nothing was cached: every prompt is asked again
    _, _, _, good = run_cli(project, "eval")
    raw = json.loads((good / "run.json").read_text())
    raw["gates"] = [g for g in raw["gates"] if g["gate"] != "answered"]
    raw["passed"] = True
    (good / "run.json").write_text(json.dumps(raw))
    old = read_run(good)
    assert old.gates == () and old.passed is True and old.gated == ["b"] and not old.unmeasured
    assert recomputed(good) == generation_gates(good) == []
    done = CliRunner().invoke(app, ["diff", str(good), str(bad), "--candidate", "b"])
    assert done.exit_code == 0, done.output
    assert "answers: not compared (in run B, b had no answer: not asked 3)" in done.stdout

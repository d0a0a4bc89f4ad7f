"""The README's CI command, as written, in a fresh folder holding only `corpus/`,
`frozen.json` and `candidates.toml` (§10): no store, no spanlab.toml."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import to_json, write_json
from labeler.core.values import Boundary, Query
from tests.evaluator.pipeline.test_run import CANDIDATES, DOCS, span

TWO_CANDIDATES = (
    CANDIDATES
    + """
[[candidate]]
name = "c60"
splitter = "chars"
size = 60
overlap = 20
"""
)
"""The baseline, c30 (cuts evidence: loses queries) and c60 (the baseline's twin: loses none)."""


@pytest.fixture
def ci_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    for name, text in DOCS.items():
        (corpus_dir / name).write_text(text, encoding="utf-8")
    corpus = Corpus.read(corpus_dir)
    queries = [
        Query("q-0001", "damaged order refund days", evidence=(
            span(corpus, "refunds.md", "we refund the full price within 14 days"),),
            boundary=Boundary.CONDITION_CONSEQUENCE, slices=("critical",)),
        Query("q-0002", "express shipping cost", evidence=(
            span(corpus, "shipping.md", "Express shipping takes one day and costs 9 EUR"),)),
    ]  # fmt: skip
    write_json(to_json(queries, corpus), tmp_path / "frozen.json")
    (tmp_path / "candidates.toml").write_text(
        TWO_CANDIDATES.replace("max_lost = {max_lost}", "max_lost = 0"), "utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "candidates.toml",
        "corpus",
        "frozen.json",
    ]
    return tmp_path


def gate(*extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["gate", "candidates.toml", "--labels", "frozen.json", *extra])
    return result.exit_code, result.stdout, result.stderr


def test_the_readme_ci_command_runs_in_a_folder_with_only_corpus_and_files(ci_folder: Path) -> None:
    code, out, err = gate()
    assert "no corpus folder configured" not in err
    assert code == 1, out + err  # c30 breaks max_lost = 0; c60 holds
    assert "FAIL  c30" in out and "PASS  c60" in out
    assert "gates broken by: c30" in err
    assert not (ci_folder / "spanlab.toml").exists()
    assert len(list((ci_folder / ".spanlab" / "runs").iterdir())) == 1


def test_gate_candidate_judges_one_candidate(ci_folder: Path) -> None:
    assert gate("--candidate", "c60")[0] == 0
    code, out, _ = gate("--candidate", "c30")
    assert code == 1
    assert "c60" not in out.split("run folder")[0]
    code, _, err = gate("--candidate", "nope")
    assert code == 2 and "no candidate 'nope'" in err


def test_gate_lines_read_as_a_value_against_its_limit(ci_folder: Path) -> None:
    _, out, _ = gate()
    line = next(x for x in out.splitlines() if x.startswith("FAIL  c30"))
    assert line.startswith("FAIL  c30  overall  max_lost: ") and line.endswith(", limit 0")
    assert re.search(r": \d+ lost at (k = \d+|budget [\d,]+), limit", line)  # the basis named


def test_eval_with_labels_needs_no_spanlab_toml_either(ci_folder: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "frozen.json"])
    assert result.exit_code == 0, result.output


def test_without_a_corpus_folder_the_error_still_says_so(ci_folder: Path) -> None:
    (ci_folder / "corpus").rename(ci_folder / "docs")
    code, _, err = gate()
    assert code == 2 and "no corpus folder configured" in err


def test_a_github_job_summary_gets_the_whole_report(
    ci_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = ci_folder / "step-summary.md"
    summary.write_text("earlier step\n", "utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert gate()[0] == 1
    text = summary.read_text("utf-8")
    assert text.startswith("earlier step\n# spanlab run ")
    assert "![" not in text  # whole without the image: the frontier is a table
    assert "## Frontier" in text and "| `c60` |" in text
    assert "`c30` **FAIL** · `c60` pass" in text
    assert re.search(r"\| `c30` \| overall \| max_lost \| [12] \| 0 \| \*\*FAIL\*\* \|", text)
    result = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "frozen.json"])
    assert result.exit_code == 0
    assert summary.read_text("utf-8").count("# spanlab run ") == 2


def test_include_text_reaches_junit_and_only_then(ci_folder: Path) -> None:
    args = ["eval", "candidates.toml", "--labels", "frozen.json"]
    assert CliRunner().invoke(app, args).exit_code == 0
    assert CliRunner().invoke(app, [*args, "--include-text"]).exit_code == 0
    plain, with_text = sorted((ci_folder / ".spanlab" / "runs").iterdir())
    assert "damaged order refund days" not in (plain / "junit.xml").read_text("utf-8")
    junit = (with_text / "junit.xml").read_text("utf-8")
    assert ">damaged order refund days</failure>" in junit

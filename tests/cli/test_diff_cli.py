"""`spanlab diff` and `spanlab gate --against` (§16) on real lexical runs in the CI folder:
main's run kept as an artifact, a pull request that re-cuts `c60` (so it loses q-0001,
which main's c60 held), a `match = "union"` run, and the bad inputs (not a run, other
corpora, nothing shared) — exit 2 with the reason, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.runs.model import read_run
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import to_json, write_json
from labeler.core.values import Boundary, Query
from tests.cli.test_ci import ci_folder as ci_folder  # the fixture
from tests.cli.test_ci import gate
from tests.evaluator.pipeline.test_run import span


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def newest(folder: Path) -> Path:
    return sorted((folder / ".spanlab" / "runs").iterdir())[-1]


def main_artifact(folder: Path) -> Path:
    gate()
    kept = folder / "main-run"
    shutil.copytree(newest(folder), kept)
    return kept


def pull_request(folder: Path, text: str) -> None:
    cands = (folder / "candidates.toml").read_text("utf-8")
    (folder / "pr.toml").write_text(
        text.join(cands.rsplit('name = "c60"\nsplitter = "chars"\nsize = 60', 1)), "utf-8"
    )


def test_gate_against_fails_a_pull_request_that_loses_a_query_main_held(ci_folder: Path) -> None:
    kept = main_artifact(ci_folder)
    pull_request(ci_folder, 'name = "c60"\nsplitter = "chars"\nsize = 30')
    code, out, err = gate("--candidate", "c60", "--against", str(kept))
    assert code == 0, out + err  # without --against, PR's c60 is judged by the baseline only
    result = CliRunner().invoke(app, ["gate", "pr.toml", "--labels", "frozen.json",
                                      "--candidate", "c60", "--against", str(kept)])  # fmt: skip
    assert result.exit_code == 1, result.stdout + result.stderr
    assert (
        f"FAIL  c60 against {read_run(kept).id}  overall  max_lost: 2 lost at k = 2, limit 0"
        in result.stdout
    )
    assert f"FAIL  against stored run {read_run(kept).id}" in result.stdout
    assert f"c60 (against {read_run(kept).id})" in result.stderr


def test_gate_against_an_unchanged_run_passes(ci_folder: Path) -> None:
    kept = main_artifact(ci_folder)
    code, out, err = gate("--candidate", "c60", "--against", str(kept / "run.json"))
    assert code == 0, out + err
    assert (
        f"pass  c60 against {read_run(kept).id}  overall  max_lost: 0 lost at k = 2, limit 0" in out
    )
    assert "match chunk (also union)" in out  # the settings are named


def test_diff_names_the_lost_query_its_causes_and_what_differs(ci_folder: Path) -> None:
    kept = main_artifact(ci_folder)
    pull_request(ci_folder, 'name = "c60"\nsplitter = "chars"\nsize = 30')
    CliRunner().invoke(app, ["eval", "pr.toml", "--labels", "frozen.json"])
    code, out, err = run("diff", str(kept), "latest", "--candidate", "c60", "--markdown", "d.md")
    assert code == 0, out + err
    assert "on 2 shared queries (2 answerable)" in out
    assert "candidates file: candidates.toml" in out and "pr.toml" in out
    assert "  splitter size: 60 → 30\n" in out  # how c60 cuts, in the pull request
    assert (
        "lost at k = 2 (2)\n  q-0001 (condition-consequence, critical): hit in A → cut in B" in out
    )
    assert "lost at budget (1)\n  q-0002 (other): hit in A → miss in B" in out  # both bases
    assert "0 gained, 2 lost" in out
    md = (ci_folder / "d.md").read_text("utf-8")
    assert md.startswith("# spanlab diff: c60 (") and "**Lost at k = 2 (2)**" in md
    assert "| recall@k | 1.000 | 0.000 | -1.000 |" in md


def test_diff_of_a_chunk_run_and_a_union_run_says_the_rule_changed(ci_folder: Path) -> None:
    kept = main_artifact(ci_folder)
    union = (
        (ci_folder / "candidates.toml")
        .read_text("utf-8")
        .replace('retriever = "lexical"', 'retriever = "lexical"\nmatch = "union"')
    )
    (ci_folder / "union.toml").write_text(union, "utf-8")
    CliRunner().invoke(app, ["eval", "union.toml", "--labels", "frozen.json"])
    code, out, err = run("diff", str(kept), "latest", "--candidate", "c30")
    assert code == 0, out + err
    assert "setting match: chunk → union" in out
    assert "recall@k under union · chunk" in out


def test_diff_refuses_a_folder_that_is_not_a_run(ci_folder: Path) -> None:
    (ci_folder / "empty").mkdir()
    code, _, err = run("diff", "empty", "empty")
    assert code == 2 and "no such run" in err and "Traceback" not in err
    code, _, err = run("diff", "frozen.json", "frozen.json")
    assert code == 2 and "not a run" in err


def run_on_a_moved_corpus(ci_folder: Path) -> Path:
    """main's run kept as an artifact, then a document edited and the gate run again: the
    stored run and `latest` are on different corpora. Returns the stored run's folder."""
    kept = main_artifact(ci_folder)
    doc = ci_folder / "corpus" / "shipping.md"
    doc.write_text(doc.read_text("utf-8") + "\nReturns are free.\n", "utf-8")
    corpus = Corpus.read(ci_folder / "corpus")
    queries = [Query("q-0001", "damaged order refund days", evidence=(
        span(corpus, "refunds.md", "we refund the full price within 14 days"),),
        boundary=Boundary.CONDITION_CONSEQUENCE, slices=("critical",))]  # fmt: skip
    write_json(to_json(queries, corpus), ci_folder / "frozen.json")
    gate()
    return kept


def test_diff_refuses_other_corpora_with_both_hashes_unless_asked(ci_folder: Path) -> None:
    kept = run_on_a_moved_corpus(ci_folder)
    code, _, err = run("diff", str(kept), "latest", "--candidate", "c60")
    assert code == 2 and "were made on different corpora: sha256:" in err
    assert err.count("sha256:") >= 4  # both corpus hashes, in the message and the details
    code, out, err = run("diff", str(kept), "latest", "--candidate", "c60", "--shared")
    assert code == 0, err
    assert "only the shared part is compared" in out


def run_sharing_no_query(ci_folder: Path) -> Path:
    """main's run kept, then a gate on a label set with none of its queries; returns the
    stored run's folder."""
    kept = main_artifact(ci_folder)
    corpus = Corpus.read(ci_folder / "corpus")
    queries = [Query("q-0099", "express", evidence=(
        span(corpus, "shipping.md", "Express shipping takes one day"),))]  # fmt: skip
    write_json(to_json(queries, corpus), ci_folder / "frozen.json")
    gate()
    return kept


def test_diff_of_runs_that_share_no_query_is_refused(ci_folder: Path) -> None:
    kept = run_sharing_no_query(ci_folder)
    code, _, err = run("diff", str(kept), "latest", "--shared")
    assert code == 2 and "share no query" in err


def test_gate_against_appends_the_diff_to_the_job_summary(
    ci_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = main_artifact(ci_folder)
    summary = ci_folder / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, err = gate("--candidate", "c60", "--against", str(kept))
    assert code == 0, out + err
    text = summary.read_text("utf-8")
    assert text.startswith("# spanlab run ")  # the run's report first
    assert "match `chunk (also union)`" in text  # it names its settings
    assert f"# spanlab diff: c60 ({read_run(kept).id}, match chunk) → c60 (" in text


def test_gate_against_says_the_verdict_first_and_names_a_candidate_main_lacks(
    ci_folder: Path,
) -> None:
    kept = main_artifact(ci_folder)
    cands = (ci_folder / "candidates.toml").read_text("utf-8")
    extra = '\n[[candidate]]\nname = "c45"\nsplitter = "chars"\nsize = 45\n'
    head, gates = cands.split("[gates]", 1) if "[gates]" in cands else (cands, None)
    text = head + extra + ("" if gates is None else "\n[gates]" + gates)
    (ci_folder / "pr.toml").write_text(text, "utf-8")
    result = CliRunner().invoke(app, ["gate", "pr.toml", "--labels", "frozen.json",
                                      "--against", str(kept)])  # fmt: skip
    lines = result.stdout.splitlines()
    main_id = read_run(kept).id
    # The verdict first: not `PASS` lines above the line that says two gates broke.
    assert result.exit_code == 1
    assert lines[0] == "FAIL  gates broken by c30, c45 (against the baseline and the stored run)"
    assert f"not gated against {main_id}: c45 (no candidate of that name in the stored run)" in (
        lines
    )
    assert f"pass  c60 against {main_id}  overall  max_lost: 0 lost at k = 2, limit 0" in lines
    assert lines.index("FAIL  c45") > lines.index(f"PASS  against stored run {main_id}")


def test_diff_always_states_both_settings_and_compares_cost(ci_folder: Path) -> None:
    kept = main_artifact(ci_folder)
    code, out, err = run("diff", str(kept), str(kept), "--candidate", "c60")
    assert code == 0, out + err
    settings = "k 2 · depth 10 · match chunk (also union) · coverage ≥ 0.8 · retriever lexical"
    assert f"\nA  {settings}" in out and f"\nB  {settings}" in out  # said even when equal
    rows = {line.split()[0] + " " + line.split()[1] for line in out.splitlines() if line}
    for label in ("doc hit", "unique groups", "prompt tok", "dup pairs", "abst top-1"):
        assert label in rows, label
    assert "\nP-Ω " in out and "\nchunks " in out


def test_gate_against_a_run_json_linked_by_the_user_reads_it(ci_folder: Path) -> None:
    """A CI artifact kept elsewhere and linked by the user: the path they typed is followed
    (only a run folder's own run.json is never read through a link, §20)."""
    kept = main_artifact(ci_folder)
    linked = ci_folder / "linked"
    linked.mkdir()
    (linked / "run.json").symlink_to(kept / "run.json")
    code, out, err = gate("--candidate", "c60", "--against", str(linked / "run.json"))
    assert code == 0, out + err
    assert (
        f"pass  c60 against {read_run(kept).id}  overall  max_lost: 0 lost at k = 2, limit 0" in out
    )
    code, out, err = gate("--candidate", "c60", "--against", str(linked))
    assert code == 2 and "a symbolic link owned by" in err, out + err

"""`spanlab triage RUN_B --against RUN_A` (§16) refuses what `spanlab diff` refuses, with the
same words and exit 2, before any terminal is touched: runs on other corpora (unless
--shared), runs that share no query, a folder that is not a run."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_ci import ci_folder as ci_folder  # the fixture
from tests.cli.test_diff_cli import (
    main_artifact,
    run,
    run_on_a_moved_corpus,
    run_sharing_no_query,
)


def test_triage_against_refuses_other_corpora_with_both_hashes(ci_folder: Path) -> None:
    kept = run_on_a_moved_corpus(ci_folder)
    code, _, err = run("triage", "latest", "--against", str(kept), "--candidate", "c60")
    assert code == 2 and "were made on different corpora: sha256:" in err
    assert "--shared" in err and "Traceback" not in err


def test_triage_against_refuses_runs_that_share_no_query(ci_folder: Path) -> None:
    kept = run_sharing_no_query(ci_folder)
    code, _, err = run("triage", "latest", "--against", str(kept), "--shared")
    assert code == 2 and "share no query" in err


def test_triage_against_a_folder_that_is_not_a_run(ci_folder: Path) -> None:
    main_artifact(ci_folder)
    code, _, err = run("triage", "latest", "--against", "frozen.json")
    assert code == 2 and "not a run" in err and "Traceback" not in err

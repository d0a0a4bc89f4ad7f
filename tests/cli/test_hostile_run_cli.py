"""A hostile run.json (main's run, downloaded as a CI artifact) through every command that
reads one (§20): diff, diff --markdown, gate --against, show, trec and triage --against each
refuse it with one line naming the file and the key, exit 2, no traceback, no ESC byte on
the terminal and no file written. A run whose strings are only markdown-hostile is shown
escaped in the markdown file and the job summary; evidence naming a document the corpus
lacks is a clear error in `show`."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from tests.cli.test_ci import ci_folder as ci_folder  # the fixture
from tests.cli.test_ci import gate
from tests.cli.test_diff_cli import main_artifact

OSC52 = "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07"
"""Six clipboard writes and a title change came through `triage --against` before §20."""


def planted(kept: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of main's run folder, its run.json changed by `change`."""
    bad = kept.parent / "artifact"
    shutil.copytree(kept, bad)
    doc = json.loads((bad / "run.json").read_text("utf-8"))
    change(doc)
    (bad / "run.json").write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    return bad


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def osc(doc: dict[str, Any]) -> None:
    doc["manifest"]["settings"]["embedding"] += OSC52


def nan(doc: dict[str, Any]) -> None:
    doc["candidates"]["c60"]["metrics"]["evidence_recall@k"] = float("nan")


COMMANDS: list[tuple[str, Callable[[Path], list[str]]]] = [
    ("diff", lambda bad: ["diff", str(bad), "latest"]),
    ("diff --markdown", lambda bad: ["diff", str(bad), "latest", "--markdown", "d.md"]),
    ("gate --against", lambda bad: ["gate", "candidates.toml", "--labels", "frozen.json",
                                    "--against", str(bad)]),
    ("show", lambda bad: ["show", str(bad), "q-0001"]),
    ("trec", lambda bad: ["trec", str(bad / "run.json"), "trec-out"]),
    ("triage --against", lambda bad: ["triage", "latest", "--against", str(bad)]),
]  # fmt: skip
PLANTS = [
    (osc, "manifest.settings.embedding", "holds a control character (\\x1b)"),
    (nan, "candidates.c60.metrics.evidence_recall@k", "is NaN, not a finite number"),
]


@pytest.mark.parametrize(("plant", "key", "words"), PLANTS, ids=["OSC 52", "NaN"])
@pytest.mark.parametrize("command", [c[1] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_a_hostile_run_is_refused_by_every_command_that_reads_it(
    ci_folder: Path,
    command: Callable[[Path], list[str]],
    plant: Callable[[dict[str, Any]], None],
    key: str,
    words: str,
) -> None:
    bad = planted(main_artifact(ci_folder), plant)
    code, out, err = invoke(*command(bad))
    assert code == 2, out + err
    assert err.startswith(f"error: {bad / 'run.json'}, key {key}: {words}\n"), err
    assert "\x1b" not in out + err and "Traceback" not in err
    assert not (ci_folder / "d.md").exists() and not (ci_folder / "trec-out").exists()


def test_markdown_hostile_strings_are_escaped_in_the_markdown_and_the_job_summary(
    ci_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Strings with no control character pass the reader; markdown must not act on them."""

    def markup(doc: dict[str, Any]) -> None:
        doc["manifest"]["versions"]["numpy"] = "2|`x`<img src=x onerror=alert(1)>[l](http://e)"

    bad = planted(main_artifact(ci_folder), markup)
    code, out, err = invoke("diff", str(bad), "latest", "--markdown", "d.md")
    assert code == 0, out + err
    md = (ci_folder / "d.md").read_text("utf-8")
    row = next(line for line in md.splitlines() if line.startswith("| version numpy |"))
    cell = "``2\\|`x`<img src=x onerror=alert(1)>[l](http://e)``"  # code: nothing acts
    assert row == f"| version numpy | {cell} | `2.4.6` |"
    assert row.count(" | ") == 2  # three cells: the `|` inside is escaped
    summary = ci_folder / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, err = gate("--candidate", "c60", "--against", str(bad))
    assert code == 0, out + err
    assert row in summary.read_text("utf-8").splitlines()


def test_show_names_a_document_the_corpus_does_not_hold(ci_folder: Path) -> None:
    def elsewhere(doc: dict[str, Any]) -> None:
        doc["queries"]["q-0001"]["evidence"][0]["doc"] = "missing.md"

    bad = planted(main_artifact(ci_folder), elsewhere)
    code, out, err = invoke("show", str(bad), "q-0001", "--corpus", "corpus")
    assert code == 2, out + err
    assert err.startswith(
        f"error: key queries.q-0001: run {json.loads((bad / 'run.json').read_text())['id']}: "
        "query q-0001 names document 'missing.md', which the corpus does not hold\n"
    ), err
    assert "Traceback" not in err

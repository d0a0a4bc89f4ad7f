"""`spanlab review --list [--json]` on a working copy of the demo swapped to corpus v2.

The project is made the way a user makes it (`init`, `labels import`, then the corpus
folder replaced), once per session, and copied for each test. Commands run through the
real `spanlab` app, which mounts `review` from `labeler.cli.review`.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from labeler.cli import app as spanlab
from labeler.cli import review as review_cli
from labeler.core.resources import bundled

runner = CliRunner()
TABLES = ("meta", "bound_documents", "doc_texts", "queries", "spans", "review_decisions", "events")


def bare_app() -> typer.Typer:
    """A command line holding only the `review` module's commands."""
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """spanlab (review only)."""

    app.add_typer(review_cli.app)
    return app


def invoke(app: typer.Typer, *args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="session")
def swapped_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("review-cli")
    source = bundled("data/demo")
    shutil.copytree(source / "corpus", root / "corpus")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        assert invoke(spanlab, "init", "corpus").exit_code == 0
        assert invoke(spanlab, "labels", "import", str(source / "labels.json")).exit_code == 0
    shutil.rmtree(root / "corpus")
    shutil.copytree(source / "corpus-v2", root / "corpus")
    checkpoint(root / ".spanlab" / "labels.db")
    return root


@pytest.fixture
def project(swapped_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    shutil.copytree(swapped_template, work)
    monkeypatch.chdir(work)
    return work


def checkpoint(db: Path) -> None:
    """Fold the WAL into the database file so its bytes say everything."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(db)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in TABLES}
    finally:
        conn.close()


def test_register_adds_review_with_an_example_in_its_help() -> None:
    result = invoke(bare_app(), "review", "--help")
    assert result.exit_code == 0
    assert "Example: spanlab review --list --json" in result.stdout
    for flag in ("--list", "--json", "--annotator", "--theme", "--corpus", "--db"):
        assert flag in result.stdout


def test_list_json_has_the_fields_of_section_8(project: Path) -> None:
    result = invoke(spanlab, "review", "--list", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["bound_hash"].startswith("sha256:1a2bec20")
    assert report["corpus_hash"].startswith("sha256:70f4958d")
    assert report["waiting"] == len(report["spans"]) == 32
    keys = {"query", "span", "doc", "start", "end", "quote", "state", "candidates"}
    assert all(set(s) == keys | {"orphan_proposed", "reason"} for s in report["spans"])
    first = report["spans"][0]
    assert (first["query"], first["doc"], first["start"], first["end"]) == (
        "q-0046",
        "api/reference.md",
        263,
        347,
    )
    assert first["candidates"] == [
        {
            "start": 489,
            "end": 573,
            "kind": "exact",
            "score": 1.0,
            "parts": {"quote": 1.0, "prefix": 1.0, "suffix": 1.0, "distance": 1.0},
        }
    ]
    (trap,) = [s for s in report["spans"] if s["query"] == "q-0058"]
    assert [(c["start"], c["end"], c["kind"]) for c in trap["candidates"]] == [
        (2633, 2739, "exact"),
        (760, 866, "exact"),
    ]
    (deleted,) = [s for s in report["spans"] if s["query"] == "q-0052"]
    assert (deleted["candidates"], deleted["orphan_proposed"], deleted["state"]) == (
        [],
        True,
        "stale",
    )
    assert deleted["quote"] == "Each recovery code can be used only once."


def test_list_changes_nothing(project: Path) -> None:
    db = project / ".spanlab" / "labels.db"
    before_bytes, before_rows = db.read_bytes(), dump(db)
    assert invoke(spanlab, "review", "--list", "--json").exit_code == 0
    assert invoke(spanlab, "review", "--list").exit_code == 0
    checkpoint(db)
    assert dump(db) == before_rows
    assert db.read_bytes() == before_bytes


def test_list_prints_a_readable_table(project: Path) -> None:
    result = invoke(spanlab, "review", "--list")
    assert result.exit_code == 0, result.output
    blocks = result.stdout.split("\n\n")
    (trap,) = [b for b in blocks if b.startswith("q-0058")]
    lines = trap.splitlines()
    assert lines[0].endswith("policies/warranty.md  2414–2520  stale")
    assert lines[1] == (
        "  old    “Opened items must be returned in their original packaging or in packagi…”"
    )
    assert lines[2] == (
        "  1  exact  2633–2739  score 1.000  quote 1.00  prefix 1.00  suffix 1.00  distance 1.00"
    )
    assert lines[3].startswith("  2  exact  760–866  score 0.663  quote 1.00  prefix 0.31")
    (deleted,) = [b for b in blocks if b.startswith("q-0052")]
    assert deleted.splitlines()[2].startswith("  -  orphan proposed: no candidate")
    assert result.stdout.rstrip().endswith("32 span(s) wait for review (32 stale, 0 orphaned)")


def test_list_never_loads_textual(project: Path) -> None:
    script = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from labeler.cli import app\n"
        "r = CliRunner().invoke(app, ['review', '--list', '--json'])\n"
        "print(r.exit_code, 'textual' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["0", "False"]


def test_export_refuses_while_spans_wait_and_says_how_many(project: Path) -> None:
    result = invoke(spanlab, "labels", "export", "frozen.json")
    assert result.exit_code == 2
    assert "32 span(s) wait for review" in result.stderr
    assert not (project / "frozen.json").exists()


def test_an_unknown_theme_is_an_error(project: Path) -> None:
    result = invoke(spanlab, "review", "--theme", "neon")
    assert result.exit_code == 2
    assert "unknown theme 'neon'" in result.stderr


def test_a_missing_store_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.txt").write_text("text", encoding="utf-8")
    result = invoke(spanlab, "review", "--list", "--corpus", "corpus")
    assert result.exit_code == 2
    assert "no label store here" in result.stderr

"""Holes found attacking the merged tree as a team and an attacker would (issues 19, 20).

Each test is one hole: it fails on the tree before its fix. They drive the CLI end to end
on a small project, as a person would, and check what the store holds afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.store import Store
from tests.conftest import table_dump, write_corpus

TEXT = "Refunds take 30 days.\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": TEXT})
    assert run("init", "corpus").exit_code == 0
    return tmp_path


def dump(workdir: Path) -> dict[str, list[tuple[object, ...]]]:
    store = Store.open(workdir / ".spanlab/labels.db", create=False)
    try:
        return table_dump(store)
    finally:
        store.close()


def test_a_label_no_span_carries_is_refused_not_an_evidence_free_import(workdir: Path) -> None:
    span = {"start": 0, "end": 7, "text": "Refunds", "labels": ["Answer"]}
    row = {"text": TEXT, "question": "How long do refunds take?", "label": [span]}
    (workdir / "min.json").write_text(json.dumps([row]), encoding="utf-8")
    before = dump(workdir)
    typo = run("labels", "import", "min.json", "--format", "label-studio-min", "--label", "answer")
    assert typo.exit_code == 2, typo.output
    assert "min.json" in typo.output and "--label" in typo.output and "'Answer'" in typo.output
    assert dump(workdir) == before
    right = run("labels", "import", "min.json", "--format", "label-studio-min", "--label", "Answer")
    assert right.exit_code == 0, right.output
    assert dump(workdir)["spans"]

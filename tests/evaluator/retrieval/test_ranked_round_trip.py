"""A TREC run that `spanlab trec` exported, read back as `retriever = "ranked"`, gives the
run it came from, query by query (§19): rankings from outside are measured as spanlab's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from tests.evaluator.test_trec import CANDIDATES as TREC_CANDIDATES

DEMO = Path(__file__).resolve().parents[3] / "data" / "demo"
CANDIDATES = TREC_CANDIDATES + "{extra}\n"
"""The TREC test's candidates, and what reads a run back (`READ_BACK`)."""
READ_BACK = """
retriever = "ranked"
ranked = "out/{name}.run"
"""


def _eval(work: Path, toml: str, out: str) -> dict[str, Any]:
    (work / "c.toml").write_text(toml, encoding="utf-8")
    args = ["eval", str(work / "c.toml"), "--labels", str(DEMO / "labels.json"),
            "--corpus", str(DEMO / "corpus"), "--db", str(work / "db.sqlite"),
            "--json", str(work / out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads((work / out).read_text("utf-8"))
    return data


@pytest.mark.parametrize("name", ["recursive-300"])
def test_a_trec_run_read_back_as_ranked_gives_the_same_per_query_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.chdir(tmp_path)
    first = _eval(tmp_path, CANDIDATES.format(extra=""), "first.json")
    trec = ["trec", str(tmp_path / "first.json"), str(tmp_path / "out")]
    done = CliRunner().invoke(app, [*trec, "--corpus", str(DEMO / "corpus")])
    assert done.exit_code == 0, done.output
    again = _eval(tmp_path, CANDIDATES.format(extra=READ_BACK.format(name=name)), "again.json")
    answerable = [q for q, e in first["queries"].items() if e["evidence"] and not e["abstain"]]
    assert len(answerable) == 74
    for qid in answerable:
        was = first["queries"][qid]["candidates"][name]
        now = again["queries"][qid]["candidates"][name]
        assert [r[:4] for r in now["ranked"]] == [r[:4] for r in was["ranked"]]
        same = ("values", "status", "cause", "span_causes", "other_rule")
        assert {k: now[k] for k in same} == {k: was[k] for k in same}, qid
    index = again["candidates"][name]["index"]
    assert index["retriever"] == "ranked" and index["queries_missing"] == 7  # abstentions

"""The issue's "done when" through `spanlab eval` (§18): q's two alternatives sit in two
documents and one is at rank 1, so hit@1 = 1 and recall 1; the same file without groups
keeps the old meaning, 0 and 0.5. Lexical retrieval, one chunk per document."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.values import Query, Span, Status
from tests.conftest import write_corpus

FACT = "Refunds are paid within 14 days."
TEXTS = {
    "x.md": f"Refund timing for card payments.\n{FACT}\n",
    "y.md": f"Shipping zones and parcel sizes.\n{FACT}\n",
}
CANDIDATES = """[settings]
baseline = "whole"
k = 1
depth = 5
retriever = "lexical"

[[candidate]]
name = "whole"
splitter = "chars"
size = 400

[[candidate]]
name = "whole-too"
splitter = "chars"
size = 500
"""


def copy(corpus: Corpus, doc: str, group: int | None) -> Span:
    start = corpus.text(doc).index(FACT)
    return replace(Span.from_text(corpus.text(doc), doc, start, start + len(FACT)), group=group)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", TEXTS)
    (tmp_path / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    return tmp_path


def measured(folder: Path, group: int | None) -> dict[str, float]:
    corpus = Corpus.read(folder / "corpus")
    q = Query("q-0001", "When are card refunds paid?", status=Status.LABELLED,
              evidence=(copy(corpus, "x.md", group), copy(corpus, "y.md", group)))  # fmt: skip
    labelset.write_json(labelset.to_json([q], corpus), folder / "labels.json")
    done = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "labels.json",
                                    "--json", "run.json"])  # fmt: skip
    assert done.exit_code == 0, done.stdout + done.stderr
    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    ranked = run["queries"]["q-0001"]["candidates"]["whole"]["ranked"]
    assert ranked[0][1] == "x.md"  # the x.md copy at rank 1, y.md's below k
    metrics: dict[str, float] = run["candidates"]["whole"]["metrics"]
    return metrics


def test_alternatives_one_at_rank_1_give_hit_1_and_recall_1(folder: Path) -> None:
    got = measured(folder, 1)
    assert (got["hit@k"], got["evidence_recall@k"]) == (1.0, 1.0)


def test_the_same_file_without_groups_gives_0_and_half(folder: Path) -> None:
    got = measured(folder, None)
    assert (got["hit@k"], got["evidence_recall@k"]) == (0.0, 0.5)


def test_run_json_keeps_the_groups_and_show_names_each_alternative(folder: Path) -> None:
    measured(folder, 1)
    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert [e.get("group") for e in run["queries"]["q-0001"]["evidence"]] == [1, 1]
    shown = CliRunner().invoke(app, ["show", "latest", "q-0001"])
    assert shown.exit_code == 0, shown.stderr
    assert "evidence e1 any-of 1: x.md 33..65 (32 ch)" in shown.stdout
    assert "evidence e2 any-of 1: y.md 33..65 (32 ch)" in shown.stdout


def test_without_groups_run_json_and_show_say_nothing_of_groups(folder: Path) -> None:
    measured(folder, None)
    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert [sorted(e) for e in run["queries"]["q-0001"]["evidence"]] == [
        ["doc", "end", "start"]
    ] * 2
    shown = CliRunner().invoke(app, ["show", "latest", "q-0001"])
    assert shown.exit_code == 0, shown.stderr
    assert "evidence e1: x.md 33..65 (32 ch)" in shown.stdout and "any-of" not in shown.stdout

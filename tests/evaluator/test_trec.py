"""TREC export of a run, measured by ranx itself: on single-span queries ranx's hit rate
equals spanlab's hit@k, and over the span files its recall equals evidence_recall@k."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from labeler.cli import app

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"
CANDIDATES = """
[settings]
baseline = "chars-400"
k = 5
depth = 20
retriever = "lexical"

[[candidate]]
name = "chars-400"
splitter = "chars"
size = 400
overlap = 100

[[candidate]]
name = "recursive-300"
splitter = "recursive"
size = 300
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    work = tmp_path_factory.mktemp("trec")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)  # the run's folder and cache stay out of the checkout
        (work / "c.toml").write_text(CANDIDATES, encoding="utf-8")
        yield eval_and_trec(work)


def eval_and_trec(work: Path) -> tuple[Path, dict[str, Any]]:
    """`eval` of work/c.toml over the demo, then `trec` of its run: the TREC folder and
    run.json (the TREC tests of other candidate kinds share it)."""
    runner, corpus = CliRunner(), str(DEMO / "corpus")
    args = ["eval", str(work / "c.toml"), "--labels", str(DEMO / "labels.json"),
            "--corpus", corpus, "--db", str(work / "db.sqlite"),
            "--json", str(work / "run.json")]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        app, ["trec", str(work / "run.json"), str(work / "out"), "--corpus", corpus]
    )
    assert result.exit_code == 0, result.output
    return work / "out", json.loads((work / "run.json").read_text("utf-8"))


def _ranx(qrels: Path, run: Path, metric: str, only: set[str]) -> float:
    from ranx import Qrels, Run, evaluate

    q = {k: v for k, v in Qrels.from_file(str(qrels), kind="trec").to_dict().items() if k in only}
    r = {k: v for k, v in Run.from_file(str(run), kind="trec").to_dict().items() if k in only}
    return float(evaluate(Qrels.from_dict(q), Run.from_dict(r), metric))


def _mean(run: dict[str, Any], name: str, measure: str, only: set[str]) -> float:
    values = [run["queries"][q]["candidates"][name]["values"][measure] for q in only]
    return sum(float(v) for v in values) / len(values)


@pytest.mark.parametrize("name", ["chars-400", "recursive-300"])
def test_ranx_hit_rate_equals_spanlab_on_single_span_queries(
    exported: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, run = exported
    single = {q for q, e in run["queries"].items() if len(e["evidence"]) == 1 and not e["abstain"]}
    assert len(single) >= 20
    ours = _mean(run, name, "hit@k", single)
    assert _ranx(out / f"{name}.qrels", out / f"{name}.run", "hit_rate@5", single) == pytest.approx(
        ours
    )
    assert 0 < ours < 1  # a comparison that could fail both ways


@pytest.mark.parametrize("name", ["chars-400", "recursive-300"])
def test_ranx_recall_on_span_files_equals_evidence_recall(
    exported: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, run = exported
    answerable = {q for q, e in run["queries"].items() if e["evidence"] and not e["abstain"]}
    ours = _mean(run, name, "evidence_recall@k", answerable)
    theirs = _ranx(out / "spans.qrels", out / f"{name}.spans.run", "recall@5", answerable)
    assert theirs == pytest.approx(ours)


def test_chunk_qrels_hold_relevant_chunks_beyond_depth(
    exported: tuple[Path, dict[str, Any]],
) -> None:
    out, _run = exported
    ranked = {line.split()[2] for line in (out / "chars-400.run").read_text().splitlines()}
    relevant = {line.split()[2] for line in (out / "chars-400.qrels").read_text().splitlines()}
    assert relevant - ranked  # the index was re-cut, not just the ranked lists read


def test_a_run_on_another_corpus_is_refused(
    tmp_path: Path, exported: tuple[Path, dict[str, Any]]
) -> None:
    _, run = exported
    run = {**run, "manifest": {**run["manifest"], "corpus_hash": "sha256:other"}}
    (tmp_path / "run.json").write_text(json.dumps(run), encoding="utf-8")
    result = CliRunner().invoke(
        app,
        ["trec", str(tmp_path / "run.json"), str(tmp_path / "o"), "--corpus", str(DEMO / "corpus")],
    )
    assert result.exit_code == 2
    assert "was made on corpus sha256:other" in result.output

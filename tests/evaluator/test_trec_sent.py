"""TREC files of what each candidate sends (§17, §18), measured by ranx itself: for a plain,
a window, a parent and an MMR candidate, recall@k, hit@k and every group's first-match rank
over `trec`'s span files equal run.json's, at k and at the budget."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .test_trec import eval_and_trec

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"
KINDS = """
[settings]
baseline = "chars-300"
k = 5
depth = 20
retriever = "lexical"

[[candidate]]
name = "chars-300"
splitter = "chars"
size = 300
overlap = 60

[[candidate]]
name = "chars-300-window1"
splitter = "chars"
size = 300
overlap = 60
context = { window = 1 }

[[candidate]]
name = "chars-150-parent600"
splitter = "chars"
size = 150
overlap = 0
[candidate.context.parent]
splitter = "chars"
size = 600
overlap = 0

[[candidate]]
name = "chars-300-mmr"
splitter = "chars"
size = 300
overlap = 60
mmr = { lambda = 0.5, fetch = 20 }
"""
NAMES = ["chars-300", "chars-300-window1", "chars-150-parent600", "chars-300-mmr"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    work = tmp_path_factory.mktemp("trec-sent")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        (work / "c.toml").write_text(KINDS, encoding="utf-8")
        yield eval_and_trec(work)


def _ranx(qrels: Path, run: Path, metric: str) -> dict[str, float]:
    """ranx's per-query value of `metric` over the answerable queries."""
    from ranx import Qrels, Run, evaluate

    q, r = Qrels.from_file(str(qrels), kind="trec"), Run.from_file(str(run), kind="trec")
    evaluate(q, r, metric)
    return {qid: float(v) for qid, v in r.scores[metric].items()}


def _answerable(run: dict[str, Any]) -> list[str]:
    return [q for q, e in run["queries"].items() if e["evidence"] and not e["abstain"]]


def _group_ranks(run: dict[str, Any], qid: str, name: str) -> dict[str, int | None]:
    """Item -> the first-match rank of its group (the best of its alternatives), by
    run.json, the item named as `trec` names it (the group's first span)."""
    evidence = run["queries"][qid]["evidence"]
    ranks = run["queries"][qid]["candidates"][name]["values"]["first_match_rank"]
    first: dict[object, int] = {}
    best: dict[str, int | None] = {}
    for n, (e, rank) in enumerate(zip(evidence, ranks, strict=True)):
        item = f"{qid}#{first.setdefault(e.get('group', ('alone', n)), n)}"
        old = best.get(item, rank)
        best[item] = rank if old is None else old if rank is None else min(old, rank)
    return best


@pytest.mark.parametrize("name", NAMES)
def test_ranx_recall_and_hit_at_k_on_the_span_files_equal_the_runs(
    exported: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, run = exported
    theirs = _ranx(out / "spans.qrels", out / f"{name}.spans.run", "recall@5")
    for qid in _answerable(run):
        values = run["queries"][qid]["candidates"][name]["values"]
        assert theirs.get(qid, 0.0) == pytest.approx(values["evidence_recall@k"]), qid
        assert (theirs.get(qid, 0.0) == pytest.approx(1.0)) is values["hit@k"], qid
    mean = sum(theirs.get(q, 0.0) for q in _answerable(run)) / len(_answerable(run))
    assert mean == pytest.approx(run["candidates"][name]["metrics"]["evidence_recall@k"])


@pytest.mark.parametrize("name", NAMES)
def test_every_group_stands_at_its_true_first_match_rank(
    exported: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, run = exported
    written: dict[str, int] = {}
    for line in (out / f"{name}.spans.run").read_text("utf-8").splitlines():
        _qid, _, item, rank, _score, _tag = line.split()
        if "#fill" not in item:
            written[item] = int(rank)
    expected: dict[str, int] = {
        item: rank
        for q in _answerable(run)
        for item, rank in _group_ranks(run, q, name).items()
        if rank is not None
    }
    assert written == expected  # the rank column: every group's true first-match rank
    positions: dict[str, int] = {}
    for line in (out / f"{name}.spans.run").read_text("utf-8").splitlines():
        qid, _, item, _rank, _score, _tag = line.split()
        positions[item] = sum(1 for i in positions if i.startswith(f"{qid}#")) + 1
    for item, at in expected.items():
        qid = item.split("#")[0]
        same = [i for i, r in expected.items() if i.split("#")[0] == qid and r == at]
        if positions[item] != at:  # only a second group one unit first matches moves
            assert len(same) > 1 and positions[min(same)] == at, item
    assert sum(1 for r in expected.values() if r > 1) > 5  # ranks are not compressed to 1, 2


@pytest.mark.parametrize("name", NAMES)
def test_ranx_on_the_budget_files_equals_the_run_at_budget(
    exported: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, run = exported
    theirs = _ranx(out / "spans.qrels", out / f"{name}.budget.spans.run", "recall@20")
    answerable = _answerable(run)
    mean = sum(theirs.get(q, 0.0) for q in answerable) / len(answerable)
    at_budget = run["candidates"][name]["metrics_at_budget"]
    assert mean == pytest.approx(at_budget["evidence_recall@k"])
    hits = sum(theirs.get(q, 0.0) == pytest.approx(1.0) for q in answerable) / len(answerable)
    assert hits == pytest.approx(at_budget["hit@k"])


@pytest.mark.parametrize("name", ["chars-300-window1", "chars-150-parent600"])
def test_a_context_candidate_writes_what_it_sends_and_what_it_retrieves_apart(
    exported: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, run = exported
    sent = (out / f"{name}.run").read_text("utf-8").splitlines()
    retrieved = (out / f"{name}.retrieved.run").read_text("utf-8").splitlines()
    assert len(sent) == len(retrieved)
    qid = _answerable(run)[0]
    entry = run["queries"][qid]["candidates"][name]
    first = next(line.split() for line in sent if line.startswith(f"{qid} "))
    assert first[2] == entry["sent"][0][0] != entry["ranked"][0][0]
    assert not (out / "chars-300.retrieved.run").exists()  # a plain candidate sends its chunks
    positions = [int(line.split()[3]) for line in sent if line.startswith(f"{qid} ")]
    assert positions == list(range(1, len(positions) + 1))  # a repeat keeps its rank


def test_the_folder_says_which_file_holds_what(exported: tuple[Path, dict[str, Any]]) -> None:
    out, _run = exported
    said = (out / "README.txt").read_text("utf-8")
    assert "the unit the candidate SENDS" in said
    assert "TRUE first-match rank" in said
    assert "the verdict is decided at budget" in said

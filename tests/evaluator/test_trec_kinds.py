"""TREC files of the retrieval kinds §19 and §24 add, measured by ranx itself: hybrid, a
reranker behind a loopback `/rerank`, a ranked file, a sentence window that does not merge
(its units repeat) and an auto-merging parent. For each, recall@k, hit@k and every group's
first-match rank over `trec`'s span files equal run.json's, at k and at the budget."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.chunking import SplitterSpec, chunk_corpus
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.lexical import LexicalRetriever
from labeler.core.corpus.folder import Corpus

from .embedding.openai_server import HashModel
from .embedding.openai_server import State as EmbeddingState
from .embedding.openai_server import serve as serve_embeddings
from .embedding.rerank_server import State, serve
from .test_trec import eval_and_trec
from .test_trec_sent import _answerable, _group_ranks, _ranx

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo"
SPLIT = 'splitter = "chars"\nsize = 300\noverlap = 60'
CANDIDATES = f"""
[settings]
baseline = "plain"
k = 5
depth = 20
retriever = "lexical"
embedding = "openai:m"
decide = "budget"

[[candidate]]
name = "plain"
{SPLIT}

[[candidate]]
name = "hybrid"
{SPLIT}
retriever = "hybrid"

[[candidate]]
name = "reranked"
{SPLIT}
rerank = {{ url = "{{url}}/rerank", model = "fake", top = 10 }}

[[candidate]]
name = "shadow"
{SPLIT}
retriever = "ranked"
ranked = "shadow.jsonl"

[[candidate]]
name = "window-apart"
{SPLIT}
context = {{ window = 1, merge = false }}

[[candidate]]
name = "automerge"
splitter = "chars"
size = 150
overlap = 0
context = {{ merge_ratio = 0.5, parent = {{ splitter = "chars", size = 600, overlap = 0 }} }}
"""
NAMES = ["plain", "hybrid", "reranked", "shadow", "window-apart", "automerge"]


def _shadow(path: Path) -> None:
    """The team's logged rankings: the lexical scorer over the candidate's chunks."""
    corpus = Corpus.read(DEMO / "corpus")
    lexical = LexicalRetriever(chunk_corpus(SplitterSpec("chars", 300, 60), corpus),
                               corpus.texts())  # fmt: skip
    labels = json.loads((DEMO / "labels.json").read_text("utf-8"))
    lines = []
    for q in labels["queries"]:
        [ranked] = lexical.search([QueryInput(q["id"], q["text"])], 20)
        items = [{"doc": r.chunk.doc, "start": r.chunk.start, "end": r.chunk.end}
                 for r in ranked]  # fmt: skip
        lines.append(json.dumps({"query": q["id"], "ranked": items}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    work = tmp_path_factory.mktemp("trec-kinds")
    embeddings = EmbeddingState(HashModel())
    httpd = serve_embeddings(embeddings)
    state = State()
    rerank = serve(state)
    url = f"http://127.0.0.1:{rerank.server_address[1]}"
    _shadow(work / "shadow.jsonl")
    (work / "c.toml").write_text(CANDIDATES.replace("{url}", url), encoding="utf-8")
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(work)
            patch.setenv("SPANLAB_EMBEDDING_URL",
                         f"http://127.0.0.1:{httpd.server_address[1]}/v1")  # fmt: skip
            yield eval_and_trec(work)
    finally:
        state.stop.set()
        httpd.shutdown()
        rerank.shutdown()


def _overlap(a: list[Any], b: list[Any]) -> bool:
    """Two entries `[id, doc, start, end, score]` share characters of one document."""
    return bool(a[1] == b[1] and a[2] < b[3] and b[2] < a[3])


def _inside(a: list[Any], b: list[Any]) -> bool:
    """Entry `a` is another unit than `b`, inside it: a child `b` replaced."""
    return bool(a[0] != b[0] and a[1] == b[1] and b[2] <= a[2] and a[3] <= b[3])


@pytest.mark.parametrize("name", NAMES)
def test_ranx_recall_and_hit_at_k_equal_the_runs(
    exported: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, run = exported
    theirs = _ranx(out / "spans.qrels", out / f"{name}.spans.run", "recall@5")
    answerable = _answerable(run)
    for qid in answerable:
        values = run["queries"][qid]["candidates"][name]["values"]
        assert theirs.get(qid, 0.0) == pytest.approx(values["evidence_recall@k"]), qid
        assert (theirs.get(qid, 0.0) == pytest.approx(1.0)) is values["hit@k"], qid
    mean = sum(theirs.get(q, 0.0) for q in answerable) / len(answerable)
    assert mean == pytest.approx(run["candidates"][name]["metrics"]["evidence_recall@k"])
    assert 0.0 < mean < 1.0  # a figure that could have gone either way


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
    expected = {
        item: rank
        for q in _answerable(run)
        for item, rank in _group_ranks(run, q, name).items()
        if rank is not None
    }
    assert written == expected
    assert sum(1 for r in expected.values() if r > 1) > 5


@pytest.mark.parametrize("name", NAMES)
def test_ranx_on_the_budget_files_equals_the_run_at_budget(
    exported: tuple[Path, dict[str, Any]], name: str
) -> None:
    out, run = exported
    theirs = _ranx(out / "spans.qrels", out / f"{name}.budget.spans.run", "recall@20")
    answerable = _answerable(run)
    at_budget = run["candidates"][name]["metrics_at_budget"]
    mean = sum(theirs.get(q, 0.0) for q in answerable) / len(answerable)
    assert mean == pytest.approx(at_budget["evidence_recall@k"])
    hits = sum(theirs.get(q, 0.0) == pytest.approx(1.0) for q in answerable) / len(answerable)
    assert hits == pytest.approx(at_budget["hit@k"])


def test_a_window_that_does_not_merge_sends_overlapping_units_at_their_own_ranks(
    exported: tuple[Path, dict[str, Any]],
) -> None:
    out, run = exported
    sent = (out / "window-apart.run").read_text("utf-8").splitlines()
    overlapping = 0
    for qid in _answerable(run):
        ranks = [int(x.split()[3]) for x in sent if x.startswith(f"{qid} ")]
        assert ranks == list(range(1, len(ranks) + 1))  # a line's position is its rank
        units = run["queries"][qid]["candidates"]["window-apart"]["sent"]
        ids = [x.split()[2] for x in sent if x.startswith(f"{qid} ")]
        assert ids == [u[0] for u in units]  # every unit as sent, none merged away
        overlapping += sum(1 for a in units for b in units if a[0] < b[0] and _overlap(a, b))
    assert overlapping > 0  # neighbouring hits send their shared text again


def test_the_folder_says_how_auto_merging_and_unmerged_windows_are_written(
    exported: tuple[Path, dict[str, Any]],
) -> None:
    out, run = exported
    said = (out / "README.txt").read_text("utf-8")
    assert (
        "auto-merging: the unit at rank r is the one that holds r's chunk when ranks 1..r" in said
    )
    assert "A window that does not merge (merge = false)" in said
    replaced = 0  # rank r's child, replaced by its parent at a later rank, keeps its line
    for qid in _answerable(run):
        sent = run["queries"][qid]["candidates"]["automerge"]["sent"]
        replaced += sum(1 for i, a in enumerate(sent) for b in sent[i + 1 :] if _inside(a, b))
    assert replaced > 0

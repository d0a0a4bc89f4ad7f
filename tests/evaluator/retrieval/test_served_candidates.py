"""Hybrid, reranked, diversified, capped and a team's own search as candidates of one
`spanlab eval` (§19), against the fake servers: each evaluates, records its treatment, and
`diff` names the treatment that differs; a bad ranked file is exit 2 naming file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evaluator.chunking import SplitterSpec, chunk_corpus
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.lexical import LexicalRetriever
from labeler.cli import app
from labeler.core.corpus.folder import Corpus

from ..embedding.openai_server import HashModel
from ..embedding.openai_server import State as EmbeddingState
from ..embedding.openai_server import serve as serve_embeddings
from ..embedding.rerank_server import State, overlap, serve

DEMO = Path(__file__).resolve().parents[3] / "data" / "demo"
SPLIT = 'splitter = "chars"\nsize = 400\noverlap = 100'
CANDIDATES = f"""
[settings]
baseline = "plain"
k = 5
depth = 20
retriever = "exact"
embedding = "openai:m"

[[candidate]]
name = "plain"
{SPLIT}

[[candidate]]
name = "hybrid"
{SPLIT}
retriever = "hybrid"
stem = true
fusion = {{ k = 60, weights = [1, 1] }}

[[candidate]]
name = "reranked"
{SPLIT}
rerank = {{ url = "{{url}}/v1/rerank", model = "fake", top = 10 }}

[[candidate]]
name = "mmr"
{SPLIT}
mmr = {{ lambda = 0.5, fetch = 20 }}

[[candidate]]
name = "capped"
{SPLIT}
max_per_source = 1

[[candidate]]
name = "searched"
{SPLIT}
retriever = "http"
url = "{{url}}/search"
"""


def _team_search() -> Any:
    """The team's service: the lexical scorer over the same chunks, answered as offsets."""
    corpus = Corpus.read(DEMO / "corpus")
    texts = corpus.texts()
    chunks = chunk_corpus(SplitterSpec("chars", 400, 100), corpus)
    lexical = LexicalRetriever(chunks, texts)

    def search(text: str, k: int) -> list[dict[str, Any]]:
        [ranked] = lexical.search([QueryInput("q", text)], k)
        return [{"doc": r.chunk.doc, "start": r.chunk.start, "end": r.chunk.end,
                 "score": r.score} for r in ranked]  # fmt: skip

    return search


@pytest.fixture(scope="module")
def servers() -> Iterator[str]:
    embeddings = EmbeddingState(HashModel())
    httpd = serve_embeddings(embeddings)
    state = State(search=_team_search())
    other = serve(state)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPANLAB_EMBEDDING_URL", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
        yield f"http://127.0.0.1:{other.server_address[1]}"
    state.stop.set()
    httpd.shutdown()
    other.shutdown()


@pytest.fixture(scope="module")
def run(servers: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("served")
    (work / "c.toml").write_text(CANDIDATES.replace("{url}", servers), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(work)
        result = _eval(work, "c.toml")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads((work / "run.json").read_text("utf-8"))
    return data


def _args(work: Path, toml: str) -> list[str]:
    return ["eval", str(work / toml), "--labels", str(DEMO / "labels.json"),
            "--corpus", str(DEMO / "corpus"), "--db", str(work / "db.sqlite"),
            "--json", str(work / "run.json")]  # fmt: skip


def _eval(work: Path, toml: str) -> Any:
    return CliRunner().invoke(app, _args(work, toml))


def test_each_treatment_is_recorded_on_its_candidate(run: dict[str, Any], servers: str) -> None:
    index = {n: c["index"] for n, c in run["candidates"].items()}
    assert "treatment" not in index["plain"]
    assert index["hybrid"]["retriever"] == "hybrid"
    assert index["hybrid"]["treatment"] == {"retriever": "hybrid", "stem": True}
    assert index["hybrid"]["fusion"] == {"method": "rrf", "k": 60, "weights": [1.0, 1.0]}
    assert index["hybrid"]["bm25"]["library"].startswith("bm25s ")
    assert index["reranked"]["treatment"] == {
        "rerank": {"url": f"{servers}/v1/rerank", "model": "fake", "top": 10}}  # fmt: skip
    assert index["mmr"]["treatment"] == {"mmr": {"lambda": 0.5, "fetch": 20}}
    assert index["capped"]["treatment"] == {"max_per_source": 1}
    assert index["searched"]["url"] == f"{servers}/search"
    fingerprints = {i["treatment_fingerprint"] for n, i in index.items() if n != "plain"}
    assert len(fingerprints) == 5


def test_the_reranked_top_is_in_the_reranker_s_order(run: dict[str, Any]) -> None:
    corpus = Corpus.read(DEMO / "corpus")
    labels = json.loads((DEMO / "labels.json").read_text("utf-8"))
    question = {q["id"]: q["text"] for q in labels["queries"]}
    for qid, entry in list(run["queries"].items())[:10]:
        ranked = entry["candidates"]["reranked"]["ranked"]
        top = [overlap(question[qid], corpus.text(doc)[s:e]) for _, doc, s, e, _ in ranked[:10]]
        assert top == sorted(top, reverse=True), qid
        plain = {r[0] for r in entry["candidates"]["plain"]["ranked"][:10]}
        assert {r[0] for r in ranked[:10]} == plain  # reordered, not replaced


def test_the_cap_keeps_one_chunk_a_document_in_the_top_k(run: dict[str, Any]) -> None:
    for entry in run["queries"].values():
        docs = [r[1] for r in entry["candidates"]["capped"]["ranked"][:5]]
        assert len(docs) == len(set(docs))


def test_the_team_s_search_is_measured_like_the_lexical_scorer(
    run: dict[str, Any], tmp_path: Path
) -> None:
    searched = run["candidates"]["searched"]["metrics"]
    assert searched["evidence_recall@k"] is not None
    (tmp_path / "c.toml").write_text(
        f'[settings]\nbaseline = "l"\nk = 5\ndepth = 20\nretriever = "lexical"\n'
        f'[[candidate]]\nname = "l"\n{SPLIT}\n', encoding="utf-8")  # fmt: skip
    assert _eval(tmp_path, "c.toml").exit_code == 0
    lexical = json.loads((tmp_path / "run.json").read_text("utf-8"))["candidates"]["l"]
    assert searched["evidence_recall@k"] == lexical["metrics"]["evidence_recall@k"]


def test_diff_names_the_treatment_that_differs(run: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run), encoding="utf-8")
    args = ["diff", str(path), str(path), "--candidate", "plain", "--against-candidate", "mmr",
            "--corpus", str(DEMO / "corpus")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert 'treatment mmr: none → {"fetch": 20, "lambda": 0.5}' in result.stdout
    args[6] = "hybrid"
    result = CliRunner().invoke(app, args)
    assert "candidate retriever: exact → hybrid" in result.stdout
    assert "treatment stem: none → true" in result.stdout


def test_a_bad_ranked_file_is_exit_2_naming_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shadow.jsonl").write_text(
        '{"query": "q-0001", "ranked": []}\n{"query": "q-9999", "ranked": []}\n', "utf-8"
    )
    (tmp_path / "c.toml").write_text(
        f'[settings]\nbaseline = "l"\nk = 5\nretriever = "lexical"\n[[candidate]]\nname = "l"\n'
        f'{SPLIT}\n[[candidate]]\nname = "shadow"\n{SPLIT}\nretriever = "ranked"\n'
        f'ranked = "shadow.jsonl"\n', encoding="utf-8")  # fmt: skip
    result = _eval(tmp_path, "c.toml")
    assert result.exit_code == 2
    assert "shadow.jsonl:2" in result.stderr
    assert "query 'q-9999' is not a query of the label set" in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "run.json").exists()


def test_with_ranked_skip_bad_the_bad_line_is_counted_and_named_in_terminal_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shadow.jsonl").write_text(
        '{"query": "q-0001", "ranked": []}\n{"query": "q-9999", "ranked": []}\n', "utf-8"
    )
    (tmp_path / "c.toml").write_text(
        f'[settings]\nbaseline = "l"\nk = 5\nretriever = "lexical"\n[[candidate]]\nname = "l"\n'
        f'{SPLIT}\n[[candidate]]\nname = "shadow"\n{SPLIT}\nretriever = "ranked"\n'
        f'ranked = "shadow.jsonl"\nranked_skip_bad = true\n', encoding="utf-8")  # fmt: skip
    result = _eval(tmp_path, "c.toml")
    assert result.exit_code == 0, result.output
    shadow = str(tmp_path / "shadow.jsonl")
    said = " ".join(result.stdout.split())  # rich may wrap a long path
    assert f"candidate 'shadow': skipped 1 bad line(s) of {shadow} (ranked_skip_bad)" in said
    assert f"{shadow}:2: query 'q-9999' is not a query of the label set" in said
    index = json.loads((tmp_path / "run.json").read_text("utf-8"))["candidates"]["shadow"]
    assert index["index"]["ranked_skipped"] == 1
    assert index["index"]["ranked_skipped_lines"] == [
        {"line": 2, "message": "query 'q-9999' is not a query of the label set"}
    ]
    assert index["index"]["treatment"]["ranked_skip_bad"] is True


def test_a_command_line_retriever_that_a_treatment_does_not_fit_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text(
        f'[settings]\nbaseline = "l"\nretriever = "lexical"\n[[candidate]]\nname = "l"\n'
        f"{SPLIT}\n[[candidate]]\nname = \"stemmed\"\n{SPLIT}\nstem = true\n", encoding="utf-8"
    )  # fmt: skip
    result = CliRunner().invoke(app, [*_args(tmp_path, "c.toml"), "--retriever", "chroma"])
    assert result.exit_code == 2
    assert ("key stem: candidate 'stemmed': stem is for lexical or hybrid (--retriever chroma)"
            in result.stderr)  # fmt: skip
    assert "Traceback" not in result.output and not (tmp_path / "run.json").exists()

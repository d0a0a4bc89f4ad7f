"""A corpus change leaves one live collection per candidate (§6), updated in place; a
collection an earlier spanlab made per corpus version is superseded by it and removed once
no run holds it, and never while a run does."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.candidates import parse
from evaluator.pipeline import RunOptions, RunResult, run_evaluation
from evaluator.retrieval.chroma import HNSW, connect
from evaluator.retrieval.chroma_follow import version_key
from evaluator.retrieval.chroma_lease import BUILT, COMPLETE, FAMILY, collections, hold, session
from labeler.core.corpus.folder import Corpus
from tests.evaluator.chroma.test_chroma_index import CANDIDATES, DOCS, queries
from tests.evaluator.embedding.hash_server import HashState, serve

SETTINGS = {"baseline": "w12-ov4", "k": 2, "depth": 8, "retriever": "chroma",
            "embedding": "openai:hash"}  # fmt: skip
HASHED = {"settings": SETTINGS, "candidate": CANDIDATES["candidate"]}
EDITED = {**DOCS, "shipping.md": DOCS["shipping.md"] + "\nPickup is free.\n"}
HOLD = """
import sys, time
from pathlib import Path
from evaluator.retrieval.chroma_lease import hold
hold(Path(sys.argv[1]), sys.argv[2])
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture(autouse=True)
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    httpd = serve(HashState(dim=8))
    monkeypatch.setenv("SPANLAB_EMBEDDING_URL", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    yield
    httpd.shutdown()


def evaluate(tmp_path: Path, texts: dict[str, str]) -> RunResult:
    corpus = Corpus.from_texts(texts)
    opts = RunOptions(chroma_path=tmp_path / "chroma", cache_path=tmp_path / "cache.db",
                      progress=False)  # fmt: skip
    cfile = parse(HASHED, file="test.toml")
    return run_evaluation(cfile, corpus, queries(corpus), label_corpus_hash=corpus.hash,
                          label_set_hash="sha256:test", options=opts)  # fmt: skip


def names(tmp_path: Path) -> dict[str, str]:
    client = connect(None, str(tmp_path / "chroma"))
    return {c.name: c.candidate for c in collections(client)}


def collection_of(result: RunResult, candidate: str) -> str:
    return str(result.runs[candidate].extra["collection"])


def test_a_changed_corpus_keeps_one_collection_per_candidate(tmp_path: Path) -> None:
    evaluate(tmp_path, DOCS)
    before = names(tmp_path)
    assert sorted(before.values()) == ["w12-ov4", "w20"]
    second = evaluate(tmp_path, EDITED)
    assert names(tmp_path) == before  # the same two, updated in place
    assert set(before) == {collection_of(second, "w12-ov4"), collection_of(second, "w20")}
    folders = [p for p in (tmp_path / "chroma").iterdir() if p.is_dir()]
    assert len(folders) <= 2


def old_style(tmp_path: Path, result: RunResult) -> str:
    """A complete per-corpus-version collection of w20's family, as earlier spanlab made."""
    client = connect(None, str(tmp_path / "chroma"))
    family = client.get_collection(collection_of(result, "w20")).metadata[FAMILY]
    name = "spanlab-" + "0" * 40  # named by corpus, splitter and model
    client.create_collection(name, configuration={"hnsw": HNSW}, metadata={
        COMPLETE: True, FAMILY: family, BUILT: 1, "candidate": "w20", "chunks": 0})  # fmt: skip
    return name


def test_an_earlier_per_corpus_collection_is_removed(tmp_path: Path) -> None:
    first = evaluate(tmp_path, DOCS)
    old = old_style(tmp_path, first)
    evaluate(tmp_path, EDITED)
    assert old not in names(tmp_path)
    assert sorted(names(tmp_path).values()) == ["w12-ov4", "w20"]


def test_a_collection_a_run_holds_is_not_removed(tmp_path: Path) -> None:
    old = old_style(tmp_path, evaluate(tmp_path, DOCS))
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    command = [sys.executable, "-c", HOLD, str(tmp_path / "chroma"), old]
    holder = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              env=env)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        evaluate(tmp_path, EDITED)
        assert old in names(tmp_path)  # another process still uses it
    finally:
        holder.communicate("", timeout=30)
    evaluate(tmp_path, EDITED)  # the next run finds it free and removes it
    assert old not in names(tmp_path)
    assert sorted(names(tmp_path).values()) == ["w12-ov4", "w20"]


def test_this_process_keeps_what_it_holds(tmp_path: Path) -> None:
    old = old_style(tmp_path, evaluate(tmp_path, DOCS))
    hold(tmp_path / "chroma", old)
    evaluate(tmp_path, EDITED)
    assert old in names(tmp_path)


def test_spanlab_cache_shows_sizes_and_prunes_what_no_run_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from labeler.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SPANLAB_CACHE", raising=False)
    folder = tmp_path / ".spanlab"
    result = evaluate(folder, DOCS)  # the default places: .spanlab/chroma, .spanlab/cache.db
    monkeypatch.setenv("SPANLAB_CACHE", str(folder / "cache.db"))
    client = connect(None, str(folder / "chroma"))
    client.create_collection("spanlab-half-built", metadata={"spanlab_complete": False})
    shown = CliRunner().invoke(app, ["cache"])
    assert shown.exit_code == 0, shown.stderr
    assert "vectors  openai:hash" in shown.stdout
    assert shown.stdout.count("  live     ") == 2
    assert shown.stdout.count(" chunks  1 corpus version\n") == 2
    assert "  stale    spanlab-half-built" in shown.stdout
    assert "1 collection(s) no run needs" in shown.stdout
    pruned = CliRunner().invoke(app, ["cache", "--prune"])
    assert pruned.exit_code == 0, pruned.stderr
    assert "removed  spanlab-half-built" in pruned.stdout
    assert set(names(folder)) == {collection_of(result, "w12-ov4"), collection_of(result, "w20")}
    with session():  # a run still reads w20's first corpus version while the corpus changes
        hold(folder / "chroma", version_key(collection_of(result, "w20"), result.corpus.hash))
        evaluate(folder, EDITED)
    shown = CliRunner().invoke(app, ["cache"])
    assert shown.stdout.count(" chunks  1 corpus version\n") == 1
    assert shown.stdout.count(" chunks  2 corpus versions\n") == 1
    assert "1 collection(s) also hold another corpus version a run was using" in shown.stdout

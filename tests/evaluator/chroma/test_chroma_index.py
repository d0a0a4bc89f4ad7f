"""Chroma-backed candidates: embedded vs server, reuse, interruption, unreachable servers."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evaluator.candidates import parse
from evaluator.chunk import Chunk
from evaluator.pipeline import RunOptions, RunResult, run_evaluation
from evaluator.retrieval.chroma import STALE_BUILD, TOUCHED, connect, ensure_collection
from evaluator.retrieval.chroma_follow import ContentIds
from evaluator.retrieval.chroma_lease import COMPLETE
from labeler.core.corpus import Corpus
from labeler.core.errors import ConfigError
from labeler.core.values import Query, Span

DOCS = {
    "refunds.md": (
        "# Refunds\n\nIf the order arrived damaged, we refund the full price within 14 days. "
        "Refunds go back to the original card.\n\n## Exceptions\n\nGift cards cannot be "
        "refunded. Sale items are final.\n"
    ),
    "shipping.md": (
        "# Shipping\n\nStandard shipping takes 3 to 5 working days. Express shipping takes one "
        "day and costs 9 EUR. Orders over 50 EUR ship free.\n"
    ),
}
IDS = ContentIds({"a.md": "sha256:a"}, "test-splitter")
"""Content ids of the hand-made chunks below."""
CANDIDATES = {
    "settings": {"baseline": "w12-ov4", "k": 2, "depth": 8, "retriever": "chroma"},
    "candidate": [
        {"name": "w12-ov4", "splitter": "words", "size": 12, "overlap": 4},
        {"name": "w20", "splitter": "words", "size": 20},
    ],
}


def queries(corpus: Corpus) -> list[Query]:
    def span(doc: str, quote: str) -> Span:
        start = corpus.text(doc).index(quote)
        return Span.from_text(corpus.text(doc), doc, start, start + len(quote))

    return [
        Query("q-1", "refund for a damaged order", evidence=(
            span("refunds.md", "we refund the full price within 14 days"),)),
        Query("q-2", "how much is express delivery", evidence=(
            span("shipping.md", "Express shipping takes one day and costs 9 EUR"),)),
        Query("q-3", "can I return a gift card", evidence=(
            span("refunds.md", "Gift cards cannot be refunded."),)),
    ]  # fmt: skip


def evaluate(tmp_path: Path, **options: Any) -> RunResult:
    corpus = Corpus.from_texts(DOCS)
    opts = RunOptions(
        chroma_path=tmp_path / "chroma", cache_path=tmp_path / "cache.db", progress=False,
        **options,
    )  # fmt: skip
    return run_evaluation(
        parse(CANDIDATES, file="test.toml"),
        corpus,
        queries(corpus),
        label_corpus_hash=corpus.hash,
        label_set_hash="sha256:test",
        options=opts,
    )


def ranked_ids(result: RunResult) -> dict[tuple[str, str], list[str]]:
    return {
        (name, qid): [r.chunk.id for r in ranked]
        for name, run in result.runs.items()
        for qid, ranked in run.ranked.items()
    }


def test_embedded_and_server_rank_the_same_chunks(tmp_path: Path, chroma_url: str) -> None:
    embedded = evaluate(tmp_path / "a")
    server = evaluate(tmp_path / "b", chroma_url=chroma_url)
    assert ranked_ids(embedded) == ranked_ids(server)
    for name, run in embedded.runs.items():
        for qid, ranked in run.ranked.items():
            other = server.runs[name].ranked[qid]
            assert [round(r.score, 4) for r in ranked] == [round(r.score, 4) for r in other]
    assert server.runs["w20"].extra["server"] == chroma_url


def test_a_second_eval_embeds_nothing_and_reuses_collections(tmp_path: Path) -> None:
    cold = evaluate(tmp_path)
    assert cold.runs["w12-ov4"].embeddings["computed"] > 0
    assert cold.embedding["queries"]["computed"] == 3
    warm = evaluate(tmp_path)
    assert warm.embedding["queries"] == {"computed": 0, "cached": 3}
    for run in warm.runs.values():
        assert run.embeddings == {}  # nothing even looked up: the collection was complete
        assert run.extra["reused"] is True
        assert run.timings["index_kind"] == "warm"
    assert ranked_ids(cold) == ranked_ids(warm)


def test_ann_agreement_with_the_exact_retriever(tmp_path: Path) -> None:
    result = evaluate(tmp_path, check_ann=True)
    for run in result.runs.values():
        # a handful of chunks: HNSW search is exhaustive, so agreement is total
        assert run.extra["ann_agreement"] == 1.0


def test_unreachable_server_fails_within_five_seconds_naming_the_url() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    with pytest.raises(ConfigError) as info:
        connect(url, None)
    assert time.monotonic() - started < 5.5
    assert url in str(info.value)


class InterruptOnSecondBatch:
    """Vectors whose second slice raises, as Ctrl-C would arrive mid-build."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.matrix = matrix
        self.calls = 0

    def __getitem__(self, index: slice) -> np.ndarray:
        self.calls += 1
        if self.calls == 2:
            raise KeyboardInterrupt
        return self.matrix[index]


def test_interrupted_build_is_never_marked_complete(tmp_path: Path) -> None:
    client = connect(None, str(tmp_path / "chroma"))
    chunks = [Chunk(f"c{i:02d}", "a.md", i * 10, i * 10 + 10) for i in range(6)]
    matrix = np.random.default_rng(0).random((6, 4)).astype(np.float32)
    with pytest.raises(KeyboardInterrupt):
        interrupting = InterruptOnSecondBatch(matrix)
        ensure_collection(
            client, "spanlab-test-interrupt", chunks, lambda: interrupting, ids=IDS,
            candidate="c", batch=2,
        )  # fmt: skip
    half = client.get_collection("spanlab-test-interrupt", embedding_function=None)
    assert half.metadata[COMPLETE] is False
    assert half.count() == 2
    collection, reused = ensure_collection(
        client, "spanlab-test-interrupt", chunks, lambda: matrix, ids=IDS, candidate="c", batch=2
    )
    assert reused is False
    assert collection.count() == 6
    assert collection.metadata[COMPLETE] is True
    _, reused_again = ensure_collection(
        client, "spanlab-test-interrupt", chunks, lambda: matrix, ids=IDS, candidate="c"
    )
    assert reused_again is True


def test_a_complete_collection_with_other_chunks_is_rebuilt_not_reused(tmp_path: Path) -> None:
    client = connect(None, str(tmp_path / "chroma"))
    matrix = np.random.default_rng(1).random((3, 4)).astype(np.float32)
    first = [Chunk(f"a{i}", "a.md", i * 10, i * 10 + 10) for i in range(3)]
    ensure_collection(client, "spanlab-test-digest", first, lambda: matrix, ids=IDS, candidate="c")
    other = [Chunk(f"b{i}", "a.md", i * 10 + 1, i * 10 + 11) for i in range(3)]  # same count
    collection, reused = ensure_collection(
        client, "spanlab-test-digest", other, lambda: matrix, ids=IDS, candidate="c"
    )
    assert reused is False
    assert sorted(collection.get()["ids"]) == sorted(IDS.of(c) for c in other)


def test_a_killed_builds_private_collection_is_removed_by_the_next_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = connect(None, str(tmp_path / "chroma"))
    chunks = [Chunk(f"c{i}", "a.md", i * 10, i * 10 + 10) for i in range(3)]
    matrix = np.random.default_rng(2).random((3, 4)).astype(np.float32)
    name = "spanlab-test-sweep"
    long_ago = time.time() - STALE_BUILD - 60
    # what a killed run leaves: an incomplete private build nobody touches any more
    client.create_collection(f"{name}-bdead0001", metadata={COMPLETE: False, TOUCHED: long_ago})
    # a live build by another run (touched just now), and another candidate's old leftover
    client.create_collection(f"{name}-blive0002", metadata={COMPLETE: False, TOUCHED: time.time()})
    client.create_collection(
        "spanlab-other-bdead0003", metadata={COMPLETE: False, TOUCHED: long_ago}
    )
    collection, reused = ensure_collection(
        client, name, chunks, lambda: matrix, ids=IDS, candidate="c", private=True
    )
    assert (collection.name, reused, collection.count()) == (name, False, 3)
    names = sorted(c.name for c in client.list_collections())
    assert names == ["spanlab-other-bdead0003", name, f"{name}-blive0002"]
    said = capsys.readouterr().err
    assert f"removed {name}-bdead0001: a killed build's leftover (untouched for 16 min)" in said

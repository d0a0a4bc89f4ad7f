"""Chroma-backed candidates: embedded vs server, reuse, interruption, unreachable servers."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from evaluator.candidates import parse
from evaluator.pipeline import RunOptions, RunResult, run_evaluation
from evaluator.retrieval.chroma import STALE_BUILD, connect, remove_per_version
from evaluator.retrieval.chroma_lease import BUILT, COMPLETE, FAMILY, MARK
from evaluator.retrieval.chroma_marks import TOUCHED
from labeler.core.corpus.folder import Corpus
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


def test_what_an_earlier_spanlab_kept_per_corpus_version_is_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = connect(None, str(tmp_path / "chroma"))
    kin, now = "family-a", time.time()
    long_ago = now - STALE_BUILD - 60

    def made(name: str, **meta: Any) -> None:
        client.create_collection(name, metadata={FAMILY: kin, **meta})

    made("spanlab-family-a")  # the family collection itself
    made("spanlab-old-version", **{COMPLETE: True, BUILT: int((now - 7200) * 1e9)})  # superseded
    made("spanlab-new-version", **{COMPLETE: True, BUILT: int((now - 60) * 1e9)})  # in use?
    made("spanlab-old-bdead0001", **{COMPLETE: False, TOUCHED: long_ago})  # a killed build
    made("spanlab-old-blive0002", **{COMPLETE: False, TOUCHED: now})  # a build still going
    made("spanlab-family-a-lock", **{MARK: "lock", TOUCHED: long_ago})  # markers: not these
    client.create_collection("spanlab-other", metadata={FAMILY: "family-b", COMPLETE: True})
    dropped = remove_per_version(client, "spanlab-family-a", kin, "http://server", now)
    assert sorted(dropped) == ["spanlab-old-bdead0001", "spanlab-old-version"]
    names = sorted(c.name for c in client.list_collections())
    assert names == ["spanlab-family-a", "spanlab-family-a-lock", "spanlab-new-version",
                     "spanlab-old-blive0002", "spanlab-other"]  # fmt: skip
    said = capsys.readouterr().err
    assert ("removed spanlab-old-bdead0001 on http://server: a killed build's leftover "
            "(untouched for 16 min)") in said  # fmt: skip
    assert ("removed spanlab-old-version on http://server: an earlier spanlab's one-version "
            "collection (built 2 h ago)") in said  # fmt: skip

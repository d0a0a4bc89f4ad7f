"""A reranking server or a team's search endpoint that stalls, trickles, lies or leaks:
every case is a clear error naming the URL within the deadline, nothing cached, the key
never shown — the embedding server's case table, through the same client (§19)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator.chunk import Chunk
from evaluator.embedding.cache import CachedEmbedder, EmbeddingCache
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.items import ChunkLookup
from evaluator.retrieval.rerank import RerankModel, pair, scores
from evaluator.retrieval.search_http import HttpRetriever
from evaluator.retrieval.treatment import Rerank
from labeler.core.errors import ConfigError

from ..embedding.rerank_server import MODES, State, serve

KEY = "sk-CANARY-5678"
TEXTS = {"a.md": "Refunds take 14 days. Shipping is free over 50 EUR.", "b.md": "Refund policy"}
CHUNKS = [Chunk("c1", "a.md", 0, 22), Chunk("c2", "a.md", 22, 51), Chunk("c3", "b.md", 0, 13)]
DOCS = ["Refund policy", "Shipping is free over 50 EUR.", "Refunds take 14 days. "]


def _items(text: str, k: int) -> list[dict[str, Any]]:
    return [{"doc": c.doc, "start": c.start, "end": c.end, "score": 1.0} for c in CHUNKS][:k]


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, State]]:
    state = State(key=KEY, search=_items)
    httpd = serve(state)
    yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    state.stop.set()
    httpd.shutdown()


@pytest.fixture
def state(server: tuple[str, State], monkeypatch: pytest.MonkeyPatch) -> Iterator[State]:
    monkeypatch.setenv("SPANLAB_RERANK_KEY", KEY)
    monkeypatch.setenv("SPANLAB_SEARCH_KEY", KEY)
    state = server[1]
    state.mode, state.tei, state.trickle = "", False, 0.25
    state.requests.clear()
    yield state
    state.mode, state.tei = "", False


def _model(url: str) -> RerankModel:
    return RerankModel(Rerank(f"{url}/v1/rerank", "m"), timeout=1.0, budget=2.5, retries=2)


def _search(url: str) -> HttpRetriever:
    lookup = ChunkLookup(CHUNKS, TEXTS)
    return HttpRetriever(f"{url}/search", lookup, timeout=1.0, budget=2.5, retries=2)


def test_scores_come_back_in_the_order_sent_from_either_shape(
    state: State, server: tuple[str, State]
) -> None:
    # the query's words: refund, days -> "Refund policy" 1/2, shipping 0, "Refunds take 14
    # days" 1/2 ("refunds" is not "refund")
    want = [0.5, 0.0, 0.5]
    assert _model(server[0]).score("refund days", DOCS) == want
    state.tei = True
    assert _model(server[0]).score("refund days", DOCS) == want
    state.tei, state.mode = False, "scrambled"
    assert _model(server[0]).score("refund days", DOCS) == want


RERANK_CASES = [
    ("nan", "NaN is not a number JSON may hold"),
    ("overflow", "answered a score that is not finite (item 0)"),
    ("dropped", "answered 2 scores for 3 texts"),
    ("duplicate-index", "not 0..2 once each"),
    ("huge", "answered 500,000,000 bytes, over the limit of 67,108,864"),
    ("stall", "no whole answer within 1 s"),
    ("trickle", "no whole answer within 1 s"),
    ("echo-key", "HTTP 401: bad key: Bearer [redacted]"),
]


@pytest.mark.parametrize(("mode", "words"), RERANK_CASES, ids=[m for m, _ in RERANK_CASES])
def test_a_bad_reranker_is_an_error_naming_the_url_and_nothing_is_cached(
    state: State, server: tuple[str, State], tmp_path: Path, mode: str, words: str
) -> None:
    state.mode = mode
    cache = EmbeddingCache(tmp_path / "cache.db")
    with pytest.raises(ConfigError) as caught:
        CachedEmbedder(_model(server[0]), cache).embed([pair("refund days", d) for d in DOCS])
    assert f"{server[0]}/v1/rerank" in caught.value.message
    assert words in caught.value.message
    assert caught.value.key == "rerank"
    assert KEY not in str(caught.value)
    assert cache.count() == 0


def test_good_scores_are_cached_and_not_asked_for_again(
    state: State, server: tuple[str, State], tmp_path: Path
) -> None:
    cache = EmbeddingCache(tmp_path / "cache.db")
    pairs = [pair("refund days", d) for d in DOCS]
    first = CachedEmbedder(_model(server[0]), cache).embed(pairs)
    again = CachedEmbedder(_model(server[0]), cache).embed(pairs)
    assert first[:, 0].tolist() == again[:, 0].tolist() == [0.5, 0.0, 0.5]
    assert state.requests == ["/v1/rerank"] and cache.count() == 3


SEARCH_CASES = [
    ("nan", "NaN is not a number JSON may hold"),
    ("off-chunk", "answered query q, item 1: a.md[0:23] is not a chunk of this candidate"),
    ("too-many", "answered query q: 3 items for k = 2"),
    ("duplicate-index", "answered query q, item 2: chunk c1 again (first as item 1)"),
    ("huge", "answered 500,000,000 bytes, over the limit of 67,108,864"),
    ("stall", "no whole answer within 1 s"),
    ("trickle", "no whole answer within 1 s"),
    ("echo-key", "HTTP 401: bad key: Bearer [redacted]"),
]


@pytest.mark.parametrize(("mode", "words"), SEARCH_CASES, ids=[m for m, _ in SEARCH_CASES])
def test_a_bad_search_server_is_an_error_naming_the_url(
    state: State, server: tuple[str, State], mode: str, words: str
) -> None:
    state.mode = mode
    with pytest.raises(ConfigError) as caught:
        _search(server[0]).search([QueryInput("q", "refund")], depth=2)
    assert f"{server[0]}/search" in caught.value.message
    assert words in caught.value.message
    assert caught.value.key == "search"
    assert KEY not in str(caught.value)


def test_a_search_server_that_ranks_fewer_items_is_taken_at_its_word(
    state: State, server: tuple[str, State]
) -> None:
    [ranked] = _search(server[0]).search([QueryInput("q", "refund")], depth=2)
    assert [r.chunk.id for r in ranked] == ["c1", "c2"]
    state.mode = "dropped"  # a search answer may be short: nothing to refuse
    [ranked] = _search(server[0]).search([QueryInput("q", "refund")], depth=2)
    assert [r.chunk.id for r in ranked] == ["c1", "c2"]


def test_the_fake_server_modes_are_all_tried() -> None:
    tried = {m for m, _ in RERANK_CASES} | {m for m, _ in SEARCH_CASES}
    assert tried | {"", "scrambled", "raw"} == set(MODES)


_bodies = st.one_of(
    st.binary(max_size=300),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=20,
    ).map(lambda v: json.dumps({"results": v}).encode()),
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_bodies)
def test_random_bytes_as_an_answer_are_only_clean_errors(
    state: State, server: tuple[str, State], body: bytes
) -> None:
    state.mode, state.raw = "raw", body
    try:
        got = RerankModel(Rerank(f"{server[0]}/rerank"), timeout=1.0, retries=0).score("q", ["a"])
    except ConfigError as exc:
        assert exc.key == "rerank" and "/rerank" in exc.message
    else:
        assert len(got) == 1
    try:
        _search(server[0]).search([QueryInput("q", "refund")], depth=2)
    except ConfigError as exc:
        assert exc.key == "search" and "/search" in exc.message
    state.mode = ""


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({"index": _values, "relevance_score": _values})))
def test_random_items_are_kept_only_when_whole_and_finite(items: list[object]) -> None:
    try:
        got = scores({"results": items}, 2, "http://h")
    except ConfigError as exc:
        assert exc.key == "rerank"
    else:
        assert len(got) == 2 and all(abs(s) < 3.1e38 for s in got)

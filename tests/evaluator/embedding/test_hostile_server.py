"""An embeddings server that stalls, trickles, lies or leaks: every case is a clear error
naming the URL, within the stated deadline, with nothing cached and the key never shown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from evaluator.embedding.cache import CachedEmbedder, EmbeddingCache
from evaluator.embedding.http import Endpoint
from evaluator.embedding.server import OpenAIEmbedder, _vectors
from labeler.cli import app
from labeler.core.errors import ConfigError

from .openai_server import HashModel, State, serve

KEY = "sk-CANARY-1234"
TEXTS = [f"question {n}: how long do refunds take?" for n in range(12)]  # 3 batches of 4


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, State]]:
    state = State(HashModel(), key=KEY)
    httpd = serve(state)
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", state
    state.stop.set()
    httpd.shutdown()


@pytest.fixture
def state(server: tuple[str, State], monkeypatch: pytest.MonkeyPatch) -> Iterator[State]:
    url, state = server
    monkeypatch.setenv("SPANLAB_EMBEDDING_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    state.mode, state.trickle = "", 0.25
    state.requests.clear()
    yield state
    state.mode = ""


def _embedder(**deadlines: float) -> OpenAIEmbedder:
    limits = {"timeout": 1.0, "budget": 2.5, "retries": 2, **deadlines}
    return OpenAIEmbedder("m", batch=4, **limits)  # type: ignore[arg-type]


CASES = [
    ("nan", "NaN is not a number JSON may hold"),
    ("inf", "Infinity is not a number JSON may hold"),
    ("overflow", "a vector that is not finite (NaN, Inf or beyond float32), row 0"),
    ("width", "vectors of width 383, not the model's 384"),
    ("zero-index", "'index' values [0, 0, 0, 0], not 0..3 once each"),
    ("duplicate-index", "'index' values [0, 1, 2, 0], not 0..3 once each"),
    ("huge", "answered 500,000,000 bytes, over the limit of 67,108,864"),
    ("endless", "answered more than 67,108,864 bytes (the limit)"),
    ("stall", "no whole answer within 1 s"),
    ("trickle", "no whole answer within 1 s"),
    ("echo-key", "HTTP 401: Incorrect API key provided: Bearer [redacted]"),
]


@pytest.mark.parametrize(("mode", "words"), CASES, ids=[m for m, _ in CASES])
def test_a_bad_server_is_an_error_naming_the_url_and_nothing_is_cached(
    state: State, server: tuple[str, State], tmp_path: Path, mode: str, words: str
) -> None:
    embedder = _embedder()
    assert embedder.dim == 384  # the probe answers well; the server turns bad after it
    state.mode = mode
    cache = EmbeddingCache(tmp_path / "embeddings.db")
    with pytest.raises(ConfigError) as caught:
        CachedEmbedder(embedder, cache).embed(TEXTS)
    message = caught.value.message
    assert f"{server[0]}/embeddings" in message
    assert words in message
    assert KEY not in str(caught.value)
    assert cache.count() == 0


def test_a_stalled_server_is_given_up_within_the_budget_retries_included(state: State) -> None:
    state.mode = "stall"
    with pytest.raises(ConfigError) as caught:
        _embedder(timeout=1.0, budget=3.5, retries=4).embed(["x"])
    # 4 retries were allowed, but 1 s per attempt and the waits between them (0.5 s, 1 s)
    # leave room in a 3.5 s budget for two attempts at most (one, on a loaded machine).
    # Only this test's one-text requests count: on a loaded machine a batch of 4 that the
    # previous test had in flight may reach the shared server after the fixture cleared it.
    assert [n for n in state.requests if n == 1] in ([1], [1, 1])
    assert "no whole answer within 1 s" in caught.value.message


def test_rows_sent_out_of_order_with_their_indices_are_put_back_in_order(state: State) -> None:
    state.mode = "scrambled"
    scrambled = _embedder().embed(TEXTS)
    state.mode = ""
    assert np.array_equal(scrambled, _embedder().embed(TEXTS))


def test_one_failed_request_ends_the_others_and_queued_ones_never_start(state: State) -> None:
    embedder = _embedder(timeout=120.0, budget=120.0)
    assert embedder.dim == 384
    state.mode, state.requests[:] = "stall", []
    state.fail[:] = [400]  # the first batch is refused at once; every other one stalls
    with pytest.raises(ConfigError, match="HTTP 400"):
        embedder.embed(TEXTS * 10)  # 30 batches, 4 at a time
    # the stalled ones were ended (else this waits 120 s), and of the 26 queued batches
    # only the one the refused worker took next, if any, was ever sent
    assert state.requests.count(0) == 1 and len(state.requests) <= 5


def test_the_key_redaction_covers_the_key_and_any_bearer_token() -> None:
    endpoint = Endpoint("http://h/v1/embeddings", KEY)
    said = endpoint.redact(f'{{"authorization":"Bearer sk-other"}} bearer {KEY} x{KEY}y')
    assert "sk-" not in said
    assert said.count("[redacted]") == 3


_bodies = st.one_of(
    st.binary(max_size=400),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=20,
    ).map(lambda v: json.dumps({"data": v}).encode()),
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_bodies)
def test_random_bytes_as_a_response_body_are_only_clean_errors(state: State, body: bytes) -> None:
    """Over the wire, after a good probe: any body is refused cleanly or is good vectors."""
    embedder = _embedder(retries=0)
    assert embedder.dim == 384
    state.mode, state.raw = "raw", body
    try:
        vectors = embedder.embed(["a"])
    except ConfigError as exc:
        assert exc.key == "embedding" and "/embeddings" in exc.message
    else:
        assert vectors.shape == (1, 384) and np.isfinite(vectors).all()
    finally:
        state.mode = ""


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({"index": _json_values, "embedding": _json_values})))
def test_random_rows_are_kept_only_when_whole_and_finite(rows: list[object]) -> None:
    try:
        vectors = _vectors({"data": rows}, 2, "http://h", 3)
    except ConfigError as exc:
        assert exc.key == "embedding"
    else:
        assert vectors.shape == (2, 3) and np.isfinite(vectors).all()


CANDIDATES = """
[settings]
baseline = "w"
k = 2
retriever = "exact"
embedding = "openai:m"

[[candidate]]
name = "w"
splitter = "words"
size = 20
overlap = 0
"""


def test_eval_against_a_server_that_echoes_the_key_is_exit_2_without_the_key(
    state: State, server: tuple[str, State], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text(CANDIDATES, encoding="utf-8")
    demo = Path(__file__).resolve().parents[3] / "data" / "demo"
    state.mode = "echo-key"
    args = ["eval", "c.toml", "--labels", str(demo / "labels.json"),
            "--corpus", str(demo / "corpus"), "--json", "run.json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"{server[0]}/embeddings" in result.output
    assert "Traceback" not in result.output and KEY not in result.output
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert not any(KEY.encode() in p.read_bytes() for p in written)
    assert not (tmp_path / "run.json").exists()


def test_the_fake_server_modes_are_all_tried() -> None:
    from .openai_server import MODES

    tried = {mode for mode, _ in CASES} | {"", "scrambled", "raw"}
    assert tried == set(MODES), json.dumps(sorted(set(MODES) - tried))


def test_a_dead_server_fails_once_at_the_probe_not_once_per_worker(state: State) -> None:
    state.mode = "stall"
    with pytest.raises(ConfigError, match="no whole answer within 1 s"):
        _embedder(budget=1.5).embed(TEXTS)  # 3 batches, 4 workers: still one probe
    assert state.requests == [1]


def test_a_proxy_named_by_the_environment_is_used(
    state: State, server: tuple[str, State], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server itself plays the proxy: the request names a host nobody listens on."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", server[0].removesuffix("/v1"))
    vectors = OpenAIEmbedder("m", "http://embeddings.invalid:9/v1", batch=4).embed(TEXTS[:2])
    assert vectors.shape == (2, 384)
    assert state.requests == [1, 2]


def test_a_good_run_through_the_server_writes_the_key_nowhere(
    state: State, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text(CANDIDATES, encoding="utf-8")
    demo = Path(__file__).resolve().parents[3] / "data" / "demo"
    args = ["eval", "c.toml", "--labels", str(demo / "labels.json"),
            "--corpus", str(demo / "corpus"), "--json", "run.json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"run.json", "report.md", "junit.xml", "embeddings.db"} <= {p.name for p in written}
    assert not any(KEY.encode() in p.read_bytes() for p in written)
    assert KEY not in result.output

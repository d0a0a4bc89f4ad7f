"""Batch, workers and timeout of `openai:` from the environment, as a slow CPU server needs:
Infinity on this machine answered 64 × 4 texts in flight after 26 s, near the 30 s default."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from typer.testing import CliRunner

from evaluator.embedding.http import SLOW_HINT, URL_HINT
from evaluator.embedding.server import LIMITS, OpenAIEmbedder
from labeler.cli import app
from labeler.core.errors import ConfigError

from .openai_server import HashModel, State, serve
from .test_hostile_server import CANDIDATES

TEXTS = [f"how long do refunds take, case {n}?" for n in range(12)]


class SlowModel(HashModel):
    """A server that needs `delay` seconds for every request, as a busy CPU one does."""

    delay = 0.0

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        time.sleep(self.delay)
        return super().embed(texts)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, State]]:
    state = State(SlowModel())
    httpd = serve(state)
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", state
    httpd.shutdown()


@pytest.fixture
def state(server: tuple[str, State], monkeypatch: pytest.MonkeyPatch) -> Iterator[State]:
    monkeypatch.setenv("SPANLAB_EMBEDDING_URL", server[0])
    for name in LIMITS:
        monkeypatch.delenv(name, raising=False)
    server[1].requests.clear()
    yield server[1]
    SlowModel.delay = 0.0


def test_batch_and_workers_come_from_the_environment(
    state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPANLAB_EMBEDDING_BATCH", "5")
    monkeypatch.setenv("SPANLAB_EMBEDDING_WORKERS", "1")
    assert OpenAIEmbedder("m").embed(TEXTS).shape == (12, 384)
    assert state.requests == [1, 5, 5, 2]  # the probe, then one batch of 5 at a time, in order


def test_unset_limits_are_the_defaults_and_the_budget_is_two_timeouts(
    state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = OpenAIEmbedder("m")
    assert (embedder.batch, embedder.workers, embedder.endpoint.timeout) == (64, 4, 30)
    assert embedder.endpoint.budget == 60.0
    monkeypatch.setenv("SPANLAB_EMBEDDING_TIMEOUT", "90")
    assert OpenAIEmbedder("m").endpoint.budget == 180.0  # a long timeout is not cut at 60 s


@pytest.mark.parametrize("value", ["0", "abc", "3000", "-1", "1e3", "٣", "4 4"])
def test_a_bad_limit_is_an_error_naming_the_variable_not_quoting_it(
    state: State, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("SPANLAB_EMBEDDING_BATCH", value)
    with pytest.raises(ConfigError) as caught:
        OpenAIEmbedder("m")
    assert caught.value.key == "SPANLAB_EMBEDDING_BATCH"
    said = "must be a whole number from 1 to 2048 (texts per request)"
    assert caught.value.message == said  # the value itself is not quoted


def test_a_slow_server_fails_with_the_slow_hint_and_a_longer_timeout_meets_it(
    state: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    SlowModel.delay = 1.3
    monkeypatch.setenv("SPANLAB_EMBEDDING_TIMEOUT", "1")
    with pytest.raises(ConfigError) as caught:
        OpenAIEmbedder("m", retries=0).embed(TEXTS[:2])
    assert "no whole answer within 1 s" in caught.value.message
    assert caught.value.hint == SLOW_HINT
    monkeypatch.setenv("SPANLAB_EMBEDDING_TIMEOUT", "20")
    assert OpenAIEmbedder("m", retries=0).embed(TEXTS[:2]).shape == (2, 384)


def test_a_refused_connection_keeps_the_url_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConfigError) as caught:
        OpenAIEmbedder("m", f"http://127.0.0.1:{port}/v1", retries=0).embed(["x"])
    assert caught.value.hint == URL_HINT


def test_eval_with_a_bad_limit_is_exit_2_naming_it(
    state: State, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SPANLAB_EMBEDDING_WORKERS", "none")
    (tmp_path / "c.toml").write_text(CANDIDATES, encoding="utf-8")
    demo = Path(__file__).resolve().parents[3] / "data" / "demo"
    args = ["eval", "c.toml", "--labels", str(demo / "labels.json"),
            "--corpus", str(demo / "corpus"), "--json", "run.json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    said = "SPANLAB_EMBEDDING_WORKERS: must be a whole number from 1 to 64 (requests at once)"
    assert said in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "run.json").exists()
    assert state.requests == []

"""`embedding = "openai:MODEL"` against a real local server that speaks the OpenAI API over
the project's MiniLM: the same vectors, batching, retries, key handling, clear errors."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from evaluator.embedding import load_embedder
from evaluator.embedding.minilm import MiniLMEmbedder
from evaluator.embedding.server import OpenAIEmbedder
from labeler.cli import app
from labeler.core.errors import ConfigError

from .openai_server import State, serve

KEY = "sk-test-9f3b-not-a-real-key"
TEXTS = [f"Refunds take {n} days after the parcel arrives. 🎉 Café." for n in range(150)]


@pytest.fixture(scope="module")
def server(minilm: MiniLMEmbedder) -> Iterator[tuple[str, State]]:
    state = State(minilm, key=KEY)
    httpd = serve(state)
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", state
    httpd.shutdown()


@pytest.fixture
def env(server: tuple[str, State], monkeypatch: pytest.MonkeyPatch) -> State:
    url, state = server
    monkeypatch.setenv("SPANLAB_EMBEDDING_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    state.fail.clear()
    state.requests.clear()
    return state


def test_vectors_equal_the_in_process_model(env: State, minilm: MiniLMEmbedder) -> None:
    embedder = load_embedder("openai:all-MiniLM-L6-v2")
    assert isinstance(embedder, OpenAIEmbedder)
    vectors = embedder.embed(TEXTS)
    assert np.allclose(vectors, minilm.embed(TEXTS), atol=1e-6)
    assert env.requests[0] == 1  # the probe first: a dead server fails there, once
    assert sorted(env.requests[1:]) == [22, 64, 64]  # batches of 64, sent concurrently
    assert embedder.dim == 384
    assert len(env.requests) == 4  # the probe, asked for once


def test_fingerprint_names_model_endpoint_and_probe(env: State, server: tuple[str, State]) -> None:
    fingerprint = OpenAIEmbedder("all-MiniLM-L6-v2").fingerprint
    assert fingerprint.startswith(f"openai:all-MiniLM-L6-v2 endpoint={server[0]} dim=384 probe=")
    assert KEY not in fingerprint
    assert OpenAIEmbedder("another-alias").fingerprint != fingerprint


def test_busy_answers_are_retried(env: State) -> None:
    env.fail[:] = [429, 503]
    embedder = OpenAIEmbedder("m", workers=1)
    embedder.endpoint = type(embedder.endpoint)(embedder.endpoint.url, KEY, 5.0, 4, 0.01)
    assert embedder.embed(TEXTS[:3]).shape == (3, 384)
    assert env.requests[:2] == [0, 0]


def test_a_wrong_key_is_reported_with_the_server_message(
    env: State, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with pytest.raises(ConfigError) as caught:
        OpenAIEmbedder("m").embed(["x"])
    assert "HTTP 401: Incorrect API key" in caught.value.message
    assert "sk-wrong" not in caught.value.message
    assert env.requests == []  # 401 is not retried


def test_an_unreachable_server_names_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("SPANLAB_EMBEDDING_URL", f"http://user:pw@127.0.0.1:{port}/v1?x=1")
    embedder = OpenAIEmbedder("m", timeout=2.0, retries=1)
    with pytest.raises(ConfigError) as caught:
        embedder.embed(["x"])
    assert f"embedding server http://127.0.0.1:{port}/v1/embeddings failed" in caught.value.message
    assert "pw" not in caught.value.message


CANDIDATES = """
[settings]
baseline = "chars-300"
k = 3
depth = 10
retriever = "exact"
embedding = "{embedding}"

[[candidate]]
name = "chars-300"
splitter = "chars"
size = 300
overlap = 50
"""


MEASURED = ("seconds", "latency", "embeddings_")
"""Metric names that measure the machine, not the retrieval."""


def _eval(tmp_path: Path, embedding: str) -> dict[str, Any]:
    folder = tmp_path / embedding.replace(":", "-")
    folder.mkdir()
    (folder / "c.toml").write_text(CANDIDATES.format(embedding=embedding), encoding="utf-8")
    demo = Path(__file__).resolve().parents[3] / "data" / "demo"
    args = ["eval", str(folder / "c.toml"), "--labels", str(demo / "labels.json"),
            "--corpus", str(demo / "corpus"), "--db", str(folder / "db.sqlite"),
            "--json", str(folder / "run.json")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads((folder / "run.json").read_text("utf-8"))
    return data


def _retrieval(run: dict[str, Any]) -> tuple[dict[str, Any], list[list[str]]]:
    metrics = run["candidates"]["chars-300"]["metrics"]
    kept = {k: v for k, v in metrics.items() if not any(m in k for m in MEASURED)}
    ranked = [
        [r[0] for r in q["candidates"]["chars-300"]["ranked"]] for q in run["queries"].values()
    ]
    return kept, ranked


@pytest.mark.slow
def test_an_eval_through_the_server_equals_the_in_process_eval(
    env: State, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # each run's embedding cache under its own project
    local, remote = _eval(tmp_path, "minilm"), _eval(tmp_path, "openai:all-MiniLM-L6-v2")
    (local_metrics, local_ranked), (remote_metrics, remote_ranked) = (
        _retrieval(local), _retrieval(remote)
    )  # fmt: skip
    assert remote_ranked == local_ranked
    # Batches are padded to their own longest text, and the server's batches are not the
    # in-process ones: similarities may differ in the ninth decimal, never the rankings.
    assert remote_metrics == pytest.approx(local_metrics, rel=1e-6, abs=1e-7)
    assert len(local_metrics) > 10
    assert remote["manifest"]["embedding"] != local["manifest"]["embedding"]
    assert KEY not in json.dumps(remote)

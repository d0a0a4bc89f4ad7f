"""The suggestions' sentence vectors live in the project's embedding cache on disk: a second
app start (a fresh SuggesterCache, another process's view) embeds no sentence again (§6)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.embedding.vectors import cached_embedder
from evaluator.retrieval.suggest import SuggesterCache
from labeler.core.corpus.folder import Corpus
from tests.evaluator.embedding.hash_server import HashState, serve


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[HashState]:
    state = HashState(dim=8)
    httpd = serve(state)
    monkeypatch.setenv("SPANLAB_EMBEDDING_URL", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    yield state
    httpd.shutdown()


def corpus(tmp_path: Path) -> Corpus:
    folder = tmp_path / "corpus"
    folder.mkdir()
    sentences = " ".join(f"Sentence number {i} talks about topic {i % 7}." for i in range(150))
    (folder / "a.md").write_text(sentences + "\n", encoding="utf-8")
    return Corpus.read(folder)


def sentences_embedded(state: HashState) -> int:
    """Texts the server embedded, leaving out each process's one-text probe."""
    return sum(n for n in state.requests if n > 1)


def test_a_second_app_start_takes_every_sentence_vector_from_disk(
    tmp_path: Path, server: HashState
) -> None:
    docs, path = corpus(tmp_path), tmp_path / "shared" / "embeddings.db"
    first = SuggesterCache().get(docs, "openai:hash", lambda: cached_embedder("openai:hash", path))
    assert first is not None and first.vectors is not None
    embedded = sentences_embedded(server)
    assert embedded >= 150
    again = SuggesterCache().get(docs, "openai:hash", lambda: cached_embedder("openai:hash", path))
    assert again is not None and again.vectors is not None
    assert sentences_embedded(server) == embedded  # nothing more was embedded
    assert (again.vectors == first.vectors).all()
    assert again.suggest("topic 3")[0].doc == "a.md"

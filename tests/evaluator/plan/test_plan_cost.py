"""The plan's embedding cost hashes the bundled model only to look into a cache that exists
(the fingerprint is the cache's key; §17: a plan answers in a fraction of a run's time), and a
missing model is refused either way."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.candidates import parse
from evaluator.chunk import Chunk
from evaluator.embedding import EmbeddingCache, base, minilm
from evaluator.plan.cost import embedding_costs, model_identity
from labeler.core.errors import ConfigError


def _count_hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    hashed: list[Path] = []
    real = base.file_sha256

    def counted(path: Path) -> str:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(minilm, "file_sha256", counted)
    monkeypatch.setattr(minilm, "verify_model", lambda p: counted(p))
    return hashed


def test_with_no_cache_the_model_is_required_not_hashed(monkeypatch: pytest.MonkeyPatch) -> None:
    hashed = _count_hashes(monkeypatch)
    assert model_identity("minilm", hashed=False) == ("", minilm.DIM)
    assert hashed == []
    fingerprint, dim = model_identity("minilm") or ("", 0)
    assert len(hashed) == 2 and dim == minilm.DIM
    assert fingerprint == minilm.MiniLMEmbedder.from_packages().fingerprint


def test_a_missing_model_is_refused_hashed_or_not(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(minilm, "packaged_model_path", lambda: tmp_path / "model.onnx")
    for hashed in (False, True):
        with pytest.raises(ConfigError, match="embedding model file is missing"):
            model_identity("minilm", hashed=hashed)


def test_the_costs_hash_only_when_a_cache_file_is_there(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hashed = _count_hashes(monkeypatch)
    table = {"settings": {"baseline": "a", "embedding": "minilm"},
             "candidate": [{"name": "a", "splitter": "chars", "size": 10}]}  # fmt: skip
    cfile = parse(table, file="candidates.toml")
    tables = {"a": [Chunk("1", "d", 0, 5)]}
    costs, width = embedding_costs(cfile, tables, {"d": "hello"}, tmp_path / "none.db")
    assert hashed == [] and width == minilm.DIM
    cost = costs["a"]
    assert cost is not None and (cost.texts, cost.cached) == (1, 0)
    EmbeddingCache(tmp_path / "there.db").close()
    embedding_costs(cfile, tables, {"d": "hello"}, tmp_path / "there.db")
    assert len(hashed) == 2

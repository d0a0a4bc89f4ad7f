"""Embedders by name, and Chroma's own MiniLM run offline on our files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluator.embedding import MiniLMEmbedder, load_embedder
from evaluator.embedding.chroma import ChromaEmbedder, local_onnx_minilm
from evaluator.embedding.minilm import packaged_model_path, packaged_tokenizer_path
from labeler.core.errors import ConfigError

TEXTS = ["How do I get a refund?", "refund request process", "API rate limits"]


def test_minilm_is_the_default(minilm: MiniLMEmbedder) -> None:
    embedder = load_embedder()
    assert isinstance(embedder, MiniLMEmbedder)
    assert embedder.fingerprint == minilm.fingerprint
    assert load_embedder("minilm").fingerprint == minilm.fingerprint


@pytest.mark.parametrize("name", ["bert", "chroma:", "sentence-transformers:", "MiniLM"])
def test_unknown_name_is_a_config_error(name: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_embedder(name)
    assert caught.value.key == "embedding"
    assert caught.value.message == f"unknown embedding model {name!r}"


def test_sentence_transformers_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ConfigError) as caught:
        load_embedder("sentence-transformers:all-MiniLM-L6-v2")
    assert caught.value.key == "embedding"
    assert caught.value.hint is not None
    assert "pip install sentence-transformers torch==2.13.0" in caught.value.hint


def test_unknown_chroma_function_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        load_embedder("chroma:no-such-function")
    assert caught.value.key == "embedding"
    assert caught.value.message == "unknown Chroma embedding function 'no-such-function'"
    assert caught.value.hint is not None and "onnx_mini_lm_l6_v2" in caught.value.hint


def test_chroma_default_is_described_without_downloading() -> None:
    embedder = load_embedder("chroma:default")
    assert isinstance(embedder, ChromaEmbedder)
    assert embedder.dim == 384
    assert embedder.model_id == "chroma:default"
    assert embedder.fingerprint == (
        "chroma:default all-MiniLM-L6-v2"
        " archive=913d7300ceae3b2dbc2c50d1de4baacab4be7b9380491c27fab7418616a16ec3"
        " pooling=mean normalize=l2 truncation=256"
    )


def test_chroma_onnx_on_our_files_matches_minilm(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    function = local_onnx_minilm(tmp_path, packaged_model_path(), packaged_tokenizer_path())
    embedder = ChromaEmbedder(function, model_id="chroma-local", fingerprint="chroma-local")
    steps: list[int] = []
    theirs = embedder.embed(TEXTS, progress=steps.append)
    np.testing.assert_allclose(theirs, minilm.embed(TEXTS), atol=1e-4)
    assert steps == [3]
    assert embedder.dim == 384
    # Every file was already in place, so Chroma fetched no archive.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["onnx"]


def test_chroma_layout_refuses_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        local_onnx_minilm(tmp_path / "chroma", tmp_path / "model.onnx", packaged_tokenizer_path())
    assert caught.value.file == str(tmp_path / "model.onnx")


def test_importing_embeddings_loads_no_heavy_or_ui_modules() -> None:
    code = (
        "import sys, evaluator.embedding\n"
        "print(sorted(m for m in ('chromadb', 'torch', 'textual', 'onnxruntime')"
        " if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"

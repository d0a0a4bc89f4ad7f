"""SplitterSpec: defaults per splitter, errors that name candidate and key, fingerprints."""

from __future__ import annotations

import pytest

from evaluator.chunking import SplitterSpec
from evaluator.chunking.spec import DEFAULT_TOKENIZER
from labeler.core.errors import ConfigError


def test_unit_and_tokenizer_default_per_splitter() -> None:
    assert SplitterSpec("tokens", 128, 32).unit == "tokens"
    assert SplitterSpec("tokens", 128, 32).tokenizer == DEFAULT_TOKENIZER
    assert SplitterSpec("recursive", 400).unit == "chars"
    assert SplitterSpec("recursive", 400).tokenizer is None
    assert SplitterSpec("markdown", 50, unit="tokens").tokenizer == DEFAULT_TOKENIZER
    assert SplitterSpec("words", 100).unit == "words"


@pytest.mark.parametrize(
    ("spec", "key", "words"),
    [
        (SplitterSpec("paragraphs", 10), "splitter", "unknown splitter 'paragraphs'"),
        (SplitterSpec("chars", 10, unit="tokens"), "unit", "unit 'tokens'"),
        (SplitterSpec("recursive", 10, unit="lines"), "unit", "unit 'lines'"),
        (SplitterSpec("chars", 0), "size", "size must be at least 1"),
        (SplitterSpec("chars", 10, -1), "overlap", "overlap must be >= 0"),
        (SplitterSpec("chars", 10, 10), "overlap", "overlap (10) must be smaller than size (10)"),
        (SplitterSpec("tokens", 10, tokenizer=""), "tokenizer", "token units need one"),
        (SplitterSpec("python", 10), "function", "python needs one"),
        (SplitterSpec("python", 10, function="no_colon"), "function", "'module:function'"),
        (SplitterSpec("python", 10, function="no_such_mod_x:f"), "function", "cannot import"),
        (SplitterSpec("python", 10, function="json:nothing"), "function", "not a callable"),
        (SplitterSpec("tokens", 10, tokenizer="tiktoken:nope"), "tokenizer", "'nope'"),
    ],
)
def test_validate_names_candidate_and_key(spec: SplitterSpec, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        spec.validate("tok128-ov32")
    assert caught.value.key == key
    assert caught.value.message.startswith("candidate 'tok128-ov32': ")
    assert words in caught.value.message


def test_valid_specs_pass() -> None:
    spec = SplitterSpec("python", 10, 2, function="json:dumps")
    assert spec.validate("plugin") is spec
    assert SplitterSpec("chars", 80, 24).validate("c") == SplitterSpec("chars", 80, 24)


def test_fingerprint_changes_with_every_cutting_field() -> None:
    base = SplitterSpec("recursive", 200, 50)
    assert base.fingerprint() == SplitterSpec("recursive", 200, 50, unit="chars").fingerprint()
    assert len(base.fingerprint()) == 16
    others = [
        SplitterSpec("markdown", 200, 50),
        SplitterSpec("recursive", 201, 50),
        SplitterSpec("recursive", 200, 49),
        SplitterSpec("recursive", 200, 50, unit="words"),
        SplitterSpec("recursive", 200, 50, unit="tokens"),
        SplitterSpec("recursive", 200, 50, unit="tokens", tokenizer="tiktoken:cl100k_base"),
        SplitterSpec("python", 200, 50, function="a:b"),
    ]
    prints = {s.fingerprint() for s in others}
    assert len(prints) == len(others)
    assert base.fingerprint() not in prints


def test_tokenizer_is_ignored_unless_it_counts_the_units() -> None:
    plain = SplitterSpec("recursive", 200)
    named = SplitterSpec("recursive", 200, tokenizer="tiktoken:cl100k_base")
    assert plain.fingerprint() == named.fingerprint()

"""chonkie: sentence and recursive chunks exact in any unit; token chunks exact with
character units, caught by verification with tiktoken, refused with word or HF units."""

from __future__ import annotations

import pytest

from evaluator.chunking import split_text
from labeler.core.errors import ConfigError

from .hard_docs import HARD_DOCS
from .helpers import cut_all, non_space_covered, spec


@pytest.mark.parametrize(
    ("kind", "options"),
    [
        ("SentenceChunker", {"chunk_size": 60, "chunk_overlap": 10}),
        ("SentenceChunker", {"chunk_size": 20, "tokenizer": "tiktoken:cl100k_base"}),
        ("RecursiveChunker", {"chunk_size": 60}),
        ("RecursiveChunker", {"chunk_size": 20, "tokenizer": "tiktoken:cl100k_base"}),
        ("TokenChunker", {"chunk_size": 50, "chunk_overlap": 10}),
    ],
)
def test_every_hard_document_verifies(kind: str, options: dict[str, object]) -> None:
    for doc, pieces in cut_all(spec(f"chonkie:{kind}", **options)).items():
        assert pieces and non_space_covered(pieces, HARD_DOCS[doc]), doc


def test_tiktoken_token_chunks_cut_inside_an_emoji_and_are_named() -> None:
    s = spec("chonkie:TokenChunker", chunk_size=20, tokenizer="tiktoken:cl100k_base")
    with pytest.raises(ConfigError) as caught:
        split_text(s, HARD_DOCS["emoji"], "emoji")
    message = caught.value.message
    assert message.startswith("document 'emoji', chunk 3 at (66, 97): text differs")
    assert "\N{REPLACEMENT CHARACTER}" in message.split("expected text", 1)[1]


@pytest.mark.parametrize(
    ("tokenizer", "nearest"),
    [("word", "splitter = 'words'"), ("minilm", "splitter = 'tokens', tokenizer = 'minilm'")],
)
def test_token_chunks_in_word_or_hf_units_are_refused(tokenizer: str, nearest: str) -> None:
    with pytest.raises(ConfigError) as caught:
        spec("chonkie:TokenChunker", chunk_size=20, tokenizer=tokenizer)
    assert caught.value.key == "options"
    assert "decoded token text" in caught.value.message
    assert nearest in caught.value.message


def test_recipes_are_refused_because_they_download() -> None:
    with pytest.raises(ConfigError, match="downloaded from the Hugging Face hub"):
        spec("chonkie:RecursiveChunker", chunk_size=20, recipe="markdown")


def test_unknown_and_mistyped_options_name_the_option() -> None:
    with pytest.raises(ConfigError) as caught:
        spec("chonkie:SentenceChunker", chunk_size=20, chunk_ovrlap=2)
    assert caught.value.key == "options.chunk_ovrlap"
    assert "known: tokenizer, chunk_size" in caught.value.message
    with pytest.raises(ConfigError) as caught:
        spec("chonkie:SentenceChunker", chunk_size=True)
    assert caught.value.key == "options.chunk_size"
    assert "must be int, got bool" in caught.value.message

"""semantic-text-splitter: `chunk_indices` offsets are exact; MiniLM is not truncated."""

from __future__ import annotations

import pytest

from evaluator.chunking.adapters.base import hf_tokenizer

from .hard_docs import HARD_DOCS
from .helpers import cut_all, non_space_covered, spec


@pytest.mark.parametrize(
    ("kind", "options"),
    [
        ("TextSplitter", {"capacity": 40, "overlap": 8}),
        ("TextSplitter", {"capacity": [20, 60], "trim": False}),
        ("TextSplitter", {"capacity": 24, "tiktoken_model": "gpt-4"}),
        ("MarkdownSplitter", {"capacity": 24, "huggingface_tokenizer": "minilm"}),
    ],
)
def test_every_hard_document_verifies(kind: str, options: dict[str, object]) -> None:
    for doc, pieces in cut_all(spec(f"semantic-text-splitter:{kind}", **options)).items():
        assert pieces and non_space_covered(pieces, HARD_DOCS[doc]), doc


def test_untrimmed_chunks_tile_the_document() -> None:
    pieces = cut_all(spec("semantic-text-splitter:TextSplitter", capacity=30, trim=False))
    for doc, ps in pieces.items():
        assert "".join(HARD_DOCS[doc][p.start : p.end] for p in ps) == HARD_DOCS[doc]


def test_minilm_counts_past_its_128_token_truncation() -> None:
    text = "word " * 600
    s = spec("semantic-text-splitter:TextSplitter", capacity=400, huggingface_tokenizer="minilm")
    from evaluator.chunking import split_text

    pieces = split_text(s, text, "long")
    tokens = hf_tokenizer("minilm").encode(text[pieces[0].start : pieces[0].end]).ids
    assert len(pieces) == 2 and len(tokens) > 128


def test_capacity_pair_must_be_two_integers() -> None:
    from labeler.core.errors import ConfigError

    with pytest.raises(ConfigError, match="capacity must be an integer or a"):
        spec("semantic-text-splitter:TextSplitter", capacity=[1, 2, 3])

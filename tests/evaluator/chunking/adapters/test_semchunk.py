"""semchunk: its own offset tracking is exact on every hard document, in every unit."""

from __future__ import annotations

import itertools

import pytest

from evaluator.chunking.adapters import library_chunks

from .hard_docs import HARD_DOCS
from .helpers import cut_all, non_space_covered, spec

COUNTERS = ["character", "tiktoken:cl100k_base", "minilm"]


@pytest.mark.parametrize("counter", COUNTERS)
@pytest.mark.parametrize("size", [16, 64])
def test_every_hard_document_verifies(counter: str, size: int) -> None:
    s = spec("semchunk", chunk_size=size, tokenizer_or_token_counter=counter, overlap=0.25)
    for doc, pieces in cut_all(s).items():
        assert len(pieces) >= 2 or len(HARD_DOCS[doc]) <= size * 4, doc
        assert non_space_covered(pieces, HARD_DOCS[doc]), doc


def test_pieces_are_the_library_chunks_unchanged() -> None:
    options = {"chunk_size": 20, "tokenizer_or_token_counter": "character"}
    raw = library_chunks("semchunk", options, HARD_DOCS["emoji"])
    pieces = cut_all(spec("semchunk", **options))["emoji"]
    assert [(p.start, p.end) for p in pieces] == [(c.start, c.end) for c in raw]
    assert all(HARD_DOCS["emoji"][c.start : c.end] == c.text for c in raw)


def test_overlap_makes_chunks_share_text() -> None:
    s = spec("semchunk", chunk_size=20, tokenizer_or_token_counter="character", overlap=0.5)
    pieces = cut_all(s)["crlf"]
    assert any(b.start < a.end for a, b in itertools.pairwise(pieces))


def test_library_and_version_in_the_fingerprint() -> None:
    a = spec("semchunk", chunk_size=20, tokenizer_or_token_counter="character")
    b = spec("semchunk", chunk_size=21, tokenizer_or_token_counter="character")
    assert a.fingerprint_fields()["version"].endswith("semchunk==4.1.1")
    assert a.fingerprint() != b.fingerprint()
    assert a.size == 20 and a.fingerprint_fields()["options"]["chunk_size"] == 20

"""langchain-text-splitters: searched placements verified, ambiguity reported, the token
splitter's -1 named, MarkdownHeaderTextSplitter refused with the nearest spanlab splitter."""

from __future__ import annotations

import warnings

import pytest

from evaluator.chunking import split_text
from evaluator.chunking.adapters import AmbiguousPlacement
from labeler.core.errors import ConfigError

from .hard_docs import HARD_DOCS
from .helpers import cut_all, non_space_covered, spec

RECURSIVE = "langchain:RecursiveCharacterTextSplitter"


@pytest.mark.parametrize(
    "options",
    [
        {"chunk_size": 60, "chunk_overlap": 10},
        {"chunk_size": 60, "chunk_overlap": 10, "strip_whitespace": False},
        {"chunk_size": 20, "chunk_overlap": 0, "encoding_name": "cl100k_base"},
    ],
)
def test_recursive_verifies_on_every_hard_document(options: dict[str, object]) -> None:
    for doc, pieces in cut_all(spec(RECURSIVE, **options)).items():
        assert pieces and non_space_covered(pieces, HARD_DOCS[doc]), doc


def test_repeated_boilerplate_is_reported_as_ambiguous() -> None:
    s = spec(RECURSIVE, chunk_size=45, chunk_overlap=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        split_text(s, HARD_DOCS["boiler"], "boiler")
    messages = [str(w.message) for w in caught if w.category is AmbiguousPlacement]
    assert len(messages) == 1
    assert messages[0].startswith(
        "document 'boiler': 10 chunk(s) placed by the text search of langchain"
    )
    assert "occurs 10 times" in messages[0]


def test_unique_text_is_not_ambiguous() -> None:
    s = spec(RECURSIVE, chunk_size=45, chunk_overlap=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AmbiguousPlacement)
        assert split_text(s, "One unique line.\n\nAnother unique line here.", "u")


def test_token_splitter_negative_start_is_named() -> None:
    s = spec("langchain:TokenTextSplitter", chunk_size=20, chunk_overlap=5,
             encoding_name="cl100k_base")  # fmt: skip
    with pytest.raises(ConfigError) as caught:
        split_text(s, HARD_DOCS["nfd"], "nfd")
    assert caught.value.message.startswith(
        "document 'nfd', chunk 4 at (-1, 42): the library could not place it"
    )


def test_character_splitter_runs_with_its_own_separator() -> None:
    s = spec("langchain:CharacterTextSplitter", chunk_size=40, chunk_overlap=0, separator="\n")
    with pytest.warns(AmbiguousPlacement):
        pieces = split_text(s, HARD_DOCS["emoji"], "emoji")
    assert len(pieces) == 11 and non_space_covered(pieces, HARD_DOCS["emoji"])


def test_markdown_header_splitter_is_refused_with_the_nearest_splitter() -> None:
    with pytest.raises(ConfigError) as caught:
        spec("langchain:MarkdownHeaderTextSplitter", headers_to_split_on=[["#", "h1"]])
    assert "no offsets" in caught.value.message
    assert "splitter = 'markdown'" in caught.value.message

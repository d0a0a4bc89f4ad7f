"""Hypothesis properties for every splitter (§13): in range, text equals slice, every
character covered, no chunk inside its predecessor, realized overlap as declared."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.chunking import Piece, SplitterSpec, check_pieces, split_text
from evaluator.chunking.units import units_for

# Letters, marks, emoji with ZWJ, and the characters markdown and sentences look at.
ALPHABET = st.sampled_from(
    [
        *"abcXYZ019 .!?|-#`~:\n\n\t",
        *["e\u0301", "👩\u200d💻", "中", "ü", "```", "| a | b |\n|---|---|\n", "# H\n", "\n\n"],
    ]
)
TEXTS = st.lists(ALPHABET, max_size=80).map("".join)
PLAIN = settings(max_examples=60, deadline=None)
TOKENIZED = settings(max_examples=15, deadline=None)


@st.composite
def size_overlap(draw: st.DrawFn, top: int = 30) -> tuple[int, int]:
    size = draw(st.integers(1, top))
    return size, draw(st.integers(0, size - 1))


def check(spec: SplitterSpec, text: str) -> list[Piece]:
    pieces = split_text(spec, text)
    check_pieces(pieces, text)
    assert ("".join(text[p.start : p.end] for p in pieces) == "") == (text == "")
    return pieces


def assert_windows(spec: SplitterSpec, text: str) -> None:
    pieces = check(spec, text)
    units = units_for(spec.unit, text, spec.tokenizer)
    for before, after in pairwise(pieces):
        assert units.count(before.start, before.end) == spec.size
        assert units.count(after.start, before.end) == spec.overlap
    if pieces and len(units):
        assert 1 <= units.count(pieces[-1].start, pieces[-1].end) <= spec.size


@pytest.mark.parametrize("splitter", ["chars", "words"])
@PLAIN
@given(text=TEXTS, so=size_overlap())
def test_windows_properties(splitter: str, text: str, so: tuple[int, int]) -> None:
    assert_windows(SplitterSpec(splitter, *so), text)


@TOKENIZED
@given(text=TEXTS, so=size_overlap(12))
def test_minilm_token_windows_properties(text: str, so: tuple[int, int]) -> None:
    assert_windows(SplitterSpec("tokens", *so), text)


@TOKENIZED
@given(text=TEXTS, so=size_overlap(12))
def test_tiktoken_windows_properties(tiktoken_cache: None, text: str, so: tuple[int, int]) -> None:
    assert_windows(SplitterSpec("tokens", *so, tokenizer="tiktoken:cl100k_base"), text)


@pytest.mark.parametrize("unit", ["chars", "words"])
@PLAIN
@given(text=TEXTS, so=size_overlap())
def test_recursive_properties(unit: str, text: str, so: tuple[int, int]) -> None:
    spec = SplitterSpec("recursive", *so, unit=unit)
    units = units_for(unit, text, None)
    for piece in check(spec, text):
        # Separators, then single units: nothing is ever over the size.
        assert units.count(piece.start, piece.end) <= spec.size


@pytest.mark.parametrize("splitter", ["sentences", "markdown"])
@pytest.mark.parametrize("unit", ["chars", "words"])
@PLAIN
@given(text=TEXTS, so=size_overlap())
def test_packing_properties(splitter: str, unit: str, text: str, so: tuple[int, int]) -> None:
    check(SplitterSpec(splitter, *so, unit=unit), text)


@TOKENIZED
@pytest.mark.parametrize("splitter", ["recursive", "sentences", "markdown"])
@given(text=TEXTS, so=size_overlap(12))
def test_packing_properties_in_tokens(splitter: str, text: str, so: tuple[int, int]) -> None:
    check(SplitterSpec(splitter, *so, unit="tokens"), text)

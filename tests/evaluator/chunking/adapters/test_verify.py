"""The §14 verification: each rule refuses its own bad chunk list and names the chunk."""

from __future__ import annotations

import pytest

from evaluator.chunking.adapters import LibraryChunk
from evaluator.chunking.adapters.verify import ambiguities, verify
from evaluator.chunking.pieces import Piece
from labeler.core.errors import ConfigError

TEXT = "alpha beta\n\ngamma delta"


def chunk(start: int, end: int, text: str | None = None) -> LibraryChunk:
    return LibraryChunk(start, end, TEXT[start:end] if text is None else text)


def test_exact_chunks_with_whitespace_gap_pass() -> None:
    pieces = verify("d", TEXT, [chunk(0, 10), chunk(12, 23)])
    assert pieces == [Piece(0, 10), Piece(12, 23)]


@pytest.mark.parametrize(
    ("chunks", "words"),
    [
        ([chunk(0, 10, "alpha bet"), chunk(12, 23)], "chunk 0 at (0, 10): text differs"),
        ([chunk(0, 10), chunk(-1, 5, "alpha")], "chunk 1 at (-1, 5): the library could not"),
        ([chunk(0, 10), chunk(0, 23)], "chunk 1 at (0, 23): starts at or before"),
        ([chunk(0, 23), chunk(12, 23)], "chunk 1 at (12, 23): lies inside"),
        ([chunk(0, 10), chunk(12, 30, "gamma delta")], "ends beyond the document's end (23)"),
        ([chunk(0, 10), chunk(18, 23)], "character 12 ('g') is in no chunk (before chunk 1)"),
        ([chunk(6, 23)], "character 0 ('a') is in no chunk (before chunk 0)"),
        ([chunk(0, 10)], "character 12 ('g') is in no chunk (after the last chunk)"),
    ],
)
def test_each_rule_names_the_first_bad_chunk(chunks: list[LibraryChunk], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        verify("doc-a", TEXT, chunks)
    assert "document 'doc-a'" in caught.value.message
    assert words in caught.value.message


def test_mismatch_quotes_expected_text_and_text_at_offsets() -> None:
    with pytest.raises(ConfigError) as caught:
        verify("d", TEXT, [chunk(1, 11, "alpha beta")])
    message = caught.value.message
    assert "expected text 'alpha beta'" in message
    assert "text at the offsets 'lpha beta\\n'" in message
    assert caught.value.offset == 1


def test_ambiguity_counts_every_occurrence() -> None:
    text = "ab ab ab"
    found = ambiguities(text, [LibraryChunk(0, 2, "ab"), LibraryChunk(2, 8, " ab ab")])
    assert [(a.index, a.start, a.occurrences) for a in found] == [(0, 0, 3)]


def test_a_misplaced_whitespace_only_chunk_is_skipped_and_counted() -> None:
    """strip_whitespace = false: a searching library places "\\n\\n" at its first
    occurrence, before the chunk it follows; it holds no evidence, so it is left out."""
    from evaluator.chunking.adapters.verify import misplaced_blanks

    text = "Alpha.\n\nBeta.\n\nGamma."
    chunks = [LibraryChunk(0, 6, "Alpha."), LibraryChunk(6, 8, "\n\n"),
              LibraryChunk(8, 13, "Beta."), LibraryChunk(6, 8, "\n\n"),
              LibraryChunk(15, 21, "Gamma.")]  # fmt: skip
    kept, dropped = misplaced_blanks(text, chunks)
    assert dropped == 1
    assert [(c.start, c.end) for c in kept] == [(0, 6), (6, 8), (8, 13), (15, 21)]
    assert len(verify("d", text, kept)) == 4


def test_a_chunk_at_the_right_text_but_out_of_order_says_so_once() -> None:
    text = "Alpha. Beta. Alpha."
    chunks = [LibraryChunk(7, 12, "Beta."), LibraryChunk(0, 6, "Alpha.")]
    with pytest.raises(ConfigError) as caught:
        verify("d", text, chunks)
    assert "its text 'Alpha.' is at the offsets" in caught.value.message

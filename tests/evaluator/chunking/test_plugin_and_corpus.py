"""The python plugin splitter and chunking a whole corpus."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from evaluator.chunk import Chunk, chunk_id
from evaluator.chunking import Piece, SplitterSpec, check_pieces, chunk_corpus, split_text
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError

HERE = "tests.evaluator.chunking.test_plugin_and_corpus"


def halves(text: str, size: int, overlap: int) -> Iterable[tuple[int, int]]:
    """A plugin: two halves sharing `overlap` characters, returned out of order."""
    middle = len(text) // 2
    return [(middle - overlap, len(text)), (0, middle)]


def with_gap(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    return [(0, 1), (2, len(text))]


def broken(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    raise RuntimeError("boom")


def test_python_plugin_pieces_are_sorted_and_checked() -> None:
    spec = SplitterSpec("python", 10, 2, function=f"{HERE}:halves")
    assert split_text(spec, "abcdefghij") == [Piece(0, 5), Piece(3, 10)]
    assert split_text(spec, "") == []


@pytest.mark.parametrize(
    ("name", "words"), [("with_gap", "gap after the chunk before it"), ("broken", "boom")]
)
def test_python_plugin_errors_name_the_function(name: str, words: str) -> None:
    spec = SplitterSpec("python", 10, function=f"{HERE}:{name}")
    with pytest.raises(ConfigError) as caught:
        split_text(spec, "abcdefghij")
    assert caught.value.key == "function"
    assert f"python splitter '{HERE}:{name}'" in caught.value.message
    assert words in caught.value.message


@pytest.mark.parametrize(
    ("pieces", "words"),
    [
        ([Piece(1, 4)], "characters before it"),
        ([Piece(0, 4), Piece(1, 3)], "must start and end after"),
        ([Piece(0, 2), Piece(2, 2)], "needs 0 <= start < end"),
        ([Piece(0, 3)], "do not reach the end"),
        ([Piece(0, 5)], "needs 0 <= start < end <= 4"),
    ],
)
def test_check_pieces_rejects(pieces: list[Piece], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        check_pieces(pieces, "abcd")
    assert words in caught.value.message


def test_chunk_corpus_orders_documents_and_ids_chunks() -> None:
    corpus = Corpus.from_texts({"b.md": "0123456789", "a.txt": "abcdef", "c.txt": ""})
    spec = SplitterSpec("chars", 6, 2)
    chunks = chunk_corpus(spec, corpus)
    fp = spec.fingerprint()
    expected = [
        ("a.txt", 0, 6),
        ("b.md", 0, 6),
        ("b.md", 4, 10),
    ]
    assert chunks == [Chunk(chunk_id(corpus.hash, d, s, e, fp), d, s, e) for d, s, e in expected]
    assert len({c.id for c in chunks}) == 3
    other = chunk_corpus(SplitterSpec("chars", 6, 1), corpus)
    assert other[0].id != chunks[0].id


def test_chunk_corpus_carries_prefixes() -> None:
    corpus = Corpus.from_texts({"doc.md": "# T\n\nOne two.\n\nThree four.\n"})
    # Heading (5) + first paragraph (10) = 15 <= 16; the second paragraph gets "# T\n".
    chunks = chunk_corpus(SplitterSpec("markdown", 16), corpus)
    assert [(c.start, c.end, c.prefix) for c in chunks] == [(0, 15, ""), (15, 27, "# T\n")]


AT, NEED = "chunk 0 (0, 4): prefix source", "needs 0 <= start < end <= 4"


@pytest.mark.parametrize(
    ("piece", "words"),
    [
        (Piece(0, 4, "", ((0, 2),)), f"{AT} offsets without a prefix"),
        (Piece(0, 4, "ab", ((0, 5),)), f"{AT} (0, 5) {NEED}"),
        (Piece(0, 4, "ab", ((2, 2),)), f"{AT} (2, 2) {NEED}"),
        (Piece(0, 4, "ab", ((-1, 1),)), f"{AT} (-1, 1) {NEED}"),
        (Piece(0, 4, "ab", ((0.5, 2),)), f"{AT} (0.5, 2) {NEED}"),  # type: ignore[arg-type]
    ],
)
def test_check_pieces_rejects_prefix_sources_outside_the_document(piece: Piece, words: str) -> None:
    """§17: a prefix's source offsets are checked as a chunk's own are (a splitter or an
    adapter that says where its prefix came from is held to it)."""
    with pytest.raises(ConfigError) as caught:
        check_pieces([piece], "abcd")
    assert caught.value.message == words

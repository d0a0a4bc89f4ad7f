"""Fixed windows (chars, words, tokens): offsets worked out by hand."""

from __future__ import annotations

from evaluator.chunking import Piece, SplitterSpec, split_text


def spans(spec: SplitterSpec, text: str) -> list[tuple[int, int]]:
    return [(p.start, p.end) for p in split_text(spec, text)]


def test_502_chars_at_80_gives_7_windows_without_overlap() -> None:
    text = "x" * 502
    # step 80: starts 0, 80, ..., 480; the window at 480 reaches the end.
    expected = [(s, s + 80) for s in range(0, 480, 80)] + [(480, 502)]
    assert spans(SplitterSpec("chars", 80), text) == expected
    assert len(expected) == 7


def test_502_chars_at_80_overlap_24_gives_9_windows() -> None:
    text = "y" * 502
    # step 56: starts 0, 56, ..., 448; 392 + 80 = 472 < 502 goes on, 448 + 80 = 528 stops.
    expected = [(s, s + 80) for s in range(0, 448, 56)] + [(448, 502)]
    assert spans(SplitterSpec("chars", 80, 24), text) == expected
    assert len(expected) == 9


def test_chars_small() -> None:
    assert spans(SplitterSpec("chars", 4, 1), "abcdefghij") == [(0, 4), (3, 7), (6, 10)]
    assert spans(SplitterSpec("chars", 4), "abcdefghij") == [(0, 4), (4, 8), (8, 10)]
    assert spans(SplitterSpec("chars", 20), "abc") == [(0, 3)]


def test_words_end_where_the_next_word_starts() -> None:
    text = "  alpha beta  gamma\ndelta epsilon "
    # words start at 2, 8, 14, 20, 26; size 2, step 1. The first window starts at 0 (the
    # leading spaces) and each window runs to the start of the word after it.
    assert spans(SplitterSpec("words", 2, 1), text) == [(0, 14), (8, 20), (14, 26), (20, 34)]
    assert spans(SplitterSpec("words", 3), text) == [(0, 20), (20, 34)]


def test_minilm_token_windows() -> None:
    text = "The cat sat on the mat."
    # WordPiece tokens: the(0,3) cat(4,7) sat(8,11) on(12,14) the(15,18) mat(19,22) .(22,23)
    # size 3, step 2: tokens 0-2, 2-4, 4-6; ends at the next window-external token start.
    assert spans(SplitterSpec("tokens", 3, 1), text) == [(0, 12), (8, 19), (15, 23)]


def test_tiktoken_token_windows_on_non_ascii(tiktoken_cache: None) -> None:
    text = "café 👍 café"
    spec = SplitterSpec("tokens", 2, 0, tokenizer="tiktoken:cl100k_base")
    # cl100k tokens: "ca" "fé" | " "+3 bytes of 👍, last byte of 👍 | " café". The token
    # holding 👍's first bytes starts at the space (4); the one with its last byte at 👍 (5).
    assert spans(spec, text) == [(0, 4), (4, 6), (6, 11)]


def test_empty_and_blank_documents() -> None:
    assert split_text(SplitterSpec("chars", 5), "") == []
    assert split_text(SplitterSpec("words", 5), "") == []
    assert split_text(SplitterSpec("words", 5), " \n\t ") == [Piece(0, 4)]

"""Boundary kinds, grapheme safety and the old→new position map used by re-anchoring."""

from __future__ import annotations

import pytest

from labeler.core.anchoring.edges import Edge, end_edge, snap, splits, start_edge
from labeler.core.anchoring.search import DocumentPair, exact_occurrences

WOMAN_TECHNOLOGIST = "\U0001f469\u200d\U0001f4bb"


@pytest.mark.parametrize(
    ("quote", "prefix", "kind"),
    [
        ("Refunds", "", "sentence"),  # document start
        ("Refunds", "Done. ", "sentence"),
        ("Refunds", "Title\n", "sentence"),
        ("refunds", "the ", "word"),
        ("(a) item", "list: ", "word"),
        ("unds", "Ref", "none"),  # mid-word
        (" x", "a", "none"),  # starts on a space
    ],
)
def test_start_edge(quote: str, prefix: str, kind: Edge) -> None:
    assert start_edge(quote, prefix) == kind


@pytest.mark.parametrize(
    ("quote", "suffix", "kind"),
    [
        ("done.", " Next", "sentence"),
        ("Heading", "\nBody", "sentence"),  # a line end counts as a sentence end
        ("done", "", "sentence"),  # document end
        ("within 30", " days", "word"),
        ("end.", "x", "word"),
        ("with", "in", "none"),
    ],
)
def test_end_edge(quote: str, suffix: str, kind: Edge) -> None:
    assert end_edge(quote, suffix) == kind


TEXT = "One two. Three four five.\nSix"
# sentence starts 0, 9, 26; sentence ends 8, 25, 29; word starts 0 4 9 15 20 26


def test_snap_sentence_start_takes_the_nearest_start_on_each_side() -> None:
    assert snap(TEXT, {12}, "sentence", 0, 20) == {9, 26}


def test_snap_sentence_end_takes_the_nearest_end_on_each_side() -> None:
    assert snap(TEXT, {12}, "sentence", 1, 20) == {8, 25}


def test_snap_word_start_stays_within_reach() -> None:
    assert snap(TEXT, {12}, "word", 0, 3) == {9, 15}


def test_snap_sentence_falls_back_to_words_when_no_sentence_edge_is_near() -> None:
    assert snap(TEXT, {17}, "sentence", 0, 3) == {15, 20}


def test_snap_none_keeps_the_estimate_and_clamps_to_the_text() -> None:
    assert snap(TEXT, {12}, "none", 0, 3) == {12}
    assert snap(TEXT, {40}, "sentence", 1, 10) == {29}


def test_snap_none_moves_out_of_a_grapheme() -> None:
    text = "ab" + WOMAN_TECHNOLOGIST + "cd"  # the emoji is code points 2, 3 and 4
    assert snap(text, {3, 4}, "none", 0, 1) == {2}
    assert snap(text, {3, 4}, "none", 1, 1) == {5}


def test_splits_finds_offsets_inside_graphemes() -> None:
    assert [splits("x\u0301y", at) for at in range(4)] == [False, True, False, False]
    text = "a" + WOMAN_TECHNOLOGIST + "b"
    assert [splits(text, at) for at in range(6)] == [False, False, True, True, False, False]


def test_exact_occurrences_include_overlapping_ones() -> None:
    assert exact_occurrences("aa", "aaaa") == [0, 1, 2]


def test_exact_occurrences_keep_a_split_the_old_span_had_too() -> None:
    # The old quote "x" was drawn before an accent, so an "x" before an accent matches.
    assert exact_occurrences("x", "x\u0301 x", "", "\u0301") == [0, 3]
    assert exact_occurrences("x", "x\u0301 x") == [3]


def test_map_follows_insertions_before_and_between_sentences() -> None:
    pair = DocumentPair("One. Two. Three.\n", "Zero. One. Two and a half. Three.\n")
    # One 0->6, Two 5->11, its "w" 6->12, Three 10->27, the final newline 16->33.
    assert [pair.map(at) for at in (0, 5, 6, 10, 16)] == [6, 11, 12, 27, 33]


def test_map_sends_deleted_text_to_where_it_was() -> None:
    pair = DocumentPair("One. Two. Three.\n", "One. Three.\n")
    assert [pair.map(at) for at in (0, 5, 7, 10, 16, 17)] == [0, 5, 5, 5, 11, 12]


def test_map_without_old_text_is_the_identity_clamped_to_the_new_text() -> None:
    assert [DocumentPair(None, "abc").map(at) for at in (1, 10)] == [1, 3]

"""Word and sentence snapping and find, with offsets worked out by hand."""

from __future__ import annotations

from labeler.tui.widgets.document_view.textnav import (
    find_all,
    snap_sentence,
    snap_word,
    word_left,
    word_right,
)

TEXT = "Refunds take 5 days. The customer's card is credited!\nNext line here."
# Offsets: "The" 21, "customer's" 25..35, "!" 52, newline 53, "Next" 54, "here." 64..69.


def test_snap_word_grows_both_edges_to_whole_words() -> None:
    # "efunds ta" (1..10) grows to "Refunds take" (0..12).
    assert snap_word(TEXT, 1, 10) == (0, 12)


def test_snap_word_keeps_inner_apostrophe() -> None:
    # An empty range inside "customer's" (25..35) selects the whole word.
    assert snap_word(TEXT, 27, 27) == (25, 35)


def test_snap_word_trims_white_space_first() -> None:
    assert snap_word(TEXT, 7, 14) == (8, 14)


def test_snap_word_drops_dangling_punctuation_but_keeps_a_final_stop() -> None:
    # ". The" (19..24) loses the period of the sentence before; "five days." keeps its own.
    assert snap_word(TEXT, 19, 24) == (21, 24)
    assert snap_word(TEXT, 13, 20) == (13, 20)
    assert snap_word("after we issue them; PayPal", 6, 21) == (6, 19)


def test_snap_sentence_from_a_word_inside_it() -> None:
    # "customer" sits in the second sentence, 21..53 ("The … credited!").
    assert snap_sentence(TEXT, 27, 30) == (21, 53)


def test_snap_sentence_stops_at_a_line_break() -> None:
    assert snap_sentence(TEXT, 56, 56) == (54, 69)


def test_word_moves() -> None:
    assert word_right(TEXT, 0) == 7
    assert word_right(TEXT, 7) == 12
    assert word_left(TEXT, 12) == 8
    assert word_left(TEXT, 8) == 0


def test_find_all_ignores_case() -> None:
    assert find_all(TEXT, "the") == [(21, 24)]
    assert find_all(TEXT, "REFUNDS") == [(0, 7)]
    assert find_all(TEXT, "re") == [(0, 2), (45, 47), (66, 68)]
    assert find_all(TEXT, "") == []


def test_find_all_finds_whole_characters_only() -> None:
    # q with a dot above has no precomposed form: `q` alone is not a match inside it.
    assert find_all("q\u0307 q and \U0001f469\u200d\U0001f467", "q") == [(3, 4)]
    assert find_all("q\u0307 q", "q\u0307") == [(0, 2)]


def test_snap_sentence_from_the_space_after_a_sentence_takes_that_sentence() -> None:
    # The cursor on the space after "days." (20) means the sentence it ends, not two.
    assert snap_sentence(TEXT, 20, 20) == (0, 20)
    # Indentation before a sentence belongs to the sentence after it.
    assert snap_sentence("x.\n    Indented here.", 4, 4) == (7, 21)


def test_snap_sentence_goes_on_over_a_wrapped_line_and_leaves_a_bullet_out() -> None:
    text = "- It stops on 31 March; requests to v1\n  after that fail.\n- Next item."
    assert snap_sentence(text, 20, 20) == (2, 57)
    assert snap_sentence(text, 0, 0) == (2, 57)  # on the bullet: its item
    assert snap_sentence(text, 62, 62) == (60, 70)

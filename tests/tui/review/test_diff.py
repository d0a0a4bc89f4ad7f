"""Word-level differences, the context shown around a quote, and edge moves by a word."""

from __future__ import annotations

from labeler.tui.review.diff import context_window, move_end, move_start, quote_diff

# words split on white space: Refunds 0-7, are 8-11, paid 12-16, within 17-23, 14 24-26,
# "days." 27-32, Keep 33-37, "it." 38-41
TEXT = "Refunds are paid within 14 days. Keep it."


def test_a_changed_number_is_one_word_on_each_side() -> None:
    old = "Payment is retried 3 times over 7 days."
    new = "Payment is retried 3 times over 10 days."
    assert quote_diff(old, new) == (((32, 33),), ((32, 34),))


def test_a_reworded_opening_marks_only_the_words_that_changed() -> None:
    old = "Signature on delivery is required for orders with"
    new = "A signature on delivery is required for every order with"
    d = quote_diff(old, new)
    assert [old[s:e] for s, e in d.removed] == ["Signature", "orders"]
    assert [new[s:e] for s, e in d.added] == ["A signature", "every order"]


def test_equal_quotes_have_no_differences() -> None:
    assert quote_diff("same words.", "same words.") == ((), ())


def test_the_start_moves_word_by_word_and_stays_before_the_end() -> None:
    assert move_start(TEXT, 0, 32, 1) == 8
    assert move_start(TEXT, 8, 32, 1) == 12
    assert move_start(TEXT, 8, 32, -1) == 0
    assert move_start(TEXT, 0, 32, -1) == 0
    assert move_start(TEXT, 28, 32, 1) == 28  # the next word (Keep, 33) lies past the end


def test_the_end_moves_word_by_word_and_stays_after_the_start() -> None:
    assert move_end(TEXT, 0, 32, 1) == 37
    assert move_end(TEXT, 0, 31, 1) == 32  # inside "days.": out to its end, with the stop
    assert move_end(TEXT, 0, 32, -1) == 26
    assert move_end(TEXT, 0, 5, 1) == 7
    assert move_end(TEXT, 0, 7, -1) == 7  # no word ends between the start and the end
    assert move_end(TEXT, 0, 41, 1) == 41  # nothing after the last word


def test_context_is_cut_at_white_space_on_one_line() -> None:
    text = "word " * 40
    assert context_window(text, 100, 110) == (25, 189)
    assert context_window(TEXT, 12, 16, around=8) == (8, 23)


def test_context_keeps_the_quotes_line_and_one_more_non_blank_line() -> None:
    text = "Intro.\n\n## Delivery\n\nA signature is required. If nobody\nsigns, retry.\nEnd."
    start = text.index("signature")
    end = text.index(" If")
    lo, hi = context_window(text, start, end)
    assert text[lo:start] == "## Delivery\n\nA "
    assert text[end:hi] == " If nobody\nsigns, retry."

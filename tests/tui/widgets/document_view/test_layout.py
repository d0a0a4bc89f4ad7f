"""Wrapping and the offset ↔ cell mapping, on ASCII and on the characters that shift spans."""

from __future__ import annotations

from labeler.tui.widgets.document_view.layout import Layout, glyphs, wrap


def test_plain_line_breaks_after_the_last_space_that_fits() -> None:
    # "alpha beta gamma" at width 11: "alpha beta " (11 cells) then "gamma".
    assert wrap("alpha beta gamma", 11) == [0, 11]


def test_word_longer_than_a_row_is_cut() -> None:
    assert wrap("abcdefghij", 4) == [0, 4, 8]


def test_newlines_start_rows_and_empty_lines_are_rows() -> None:
    text = "ab\n\ncd"
    layout = Layout(text, 10)
    assert layout.starts == [0, 3, 4]
    assert [layout.row_span(r) for r in range(3)] == [(0, 2), (3, 3), (4, 6)]


def test_offset_on_a_newline_belongs_to_the_row_it_ends() -> None:
    layout = Layout("ab\ncd", 10)
    assert layout.row_of(2) == 0
    assert layout.column_of(2) == 2
    assert layout.row_of(3) == 1


def test_wide_characters_take_two_cells() -> None:
    # Six CJK characters are 12 cells: at width 5 each row holds two of them.
    text = "日本語の文字"
    assert wrap(text, 5) == [0, 2, 4]
    layout = Layout(text, 5)
    assert layout.column_of(1) == 2
    assert layout.offset_at(0, 3) == 1


def test_zwj_emoji_is_one_grapheme() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 5 code points, 2 cells
    text = f"a{family}b"
    layout = Layout(text, 20)
    assert layout.next_offset(1) == 6
    assert layout.previous_offset(6) == 1
    assert layout.column_of(6) == 3
    assert layout.offset_at(0, 3) == 6


def test_combining_mark_stays_with_its_letter() -> None:
    text = "e\u0301x"  # é as e + combining acute: 2 code points, 1 cell
    layout = Layout(text, 10)
    assert layout.next_offset(0) == 2
    assert layout.previous_offset(2) == 0
    assert layout.column_of(2) == 1


def test_tab_is_four_cells_and_controls_are_dots() -> None:
    assert [(g.cells, g.text) for g in glyphs("a\tb\x01", 0, 4)] == [
        (1, "a"),
        (4, "    "),
        (1, "b"),
        (1, "·"),
    ]
    assert Layout("a\tb", 10).column_of(2) == 5


def test_offset_at_past_the_row_end_is_the_row_end() -> None:
    layout = Layout("abc\ndef", 10)
    assert layout.offset_at(0, 9) == 3
    assert layout.offset_at(1, 1) == 5


def test_cursor_moves_across_a_newline_one_step() -> None:
    layout = Layout("ab\ncd", 10)
    assert layout.next_offset(2) == 3
    assert layout.previous_offset(3) == 2

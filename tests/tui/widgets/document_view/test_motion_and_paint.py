"""Cursor moves and row painting, as pure functions."""

from __future__ import annotations

from rich.style import Style

from labeler.tui.widgets.document_view.layout import Layout
from labeler.tui.widgets.document_view.motion import row_end, target
from labeler.tui.widgets.document_view.paint import ranges_in, row_segments

TEXT = "alpha beta gamma\nshort\nlonger line here"


def test_vertical_moves_keep_the_goal_column() -> None:
    layout = Layout(TEXT, 40)
    # From column 8 of row 0, down to "short" (clamped to its end, 22), then down again
    # back to column 8 of the third row (23 + 8 = 31).
    landed, goal = target(layout, 8, "down", None, 10)
    assert (landed, goal) == (22, 8)
    assert target(layout, landed, "down", goal, 10) == (31, 8)
    assert target(layout, 31, "left", 8, 10) == (30, None)


def test_end_stops_before_a_soft_wrap() -> None:
    layout = Layout("alpha beta gamma", 11)  # rows "alpha beta " and "gamma"
    assert row_end(layout, 0) == 10
    assert row_end(layout, 1) == 16
    assert target(layout, 0, "word_right", None, 1) == (5, None)
    assert target(layout, 9, "bottom", None, 1) == (16, None)


def test_row_segments_cut_where_layers_change() -> None:
    bold, under = Style(bold=True), Style(underline=True)
    segments = row_segments("abcdef", 0, 6, [(1, 4, bold), (3, 5, under)], Style())
    assert [(s.text, s.style) for s in segments] == [
        ("a", Style()),
        ("bc", Style(bold=True)),
        ("d", Style(bold=True, underline=True)),
        ("e", Style(underline=True)),
        ("f", Style()),
    ]


def test_row_segments_never_split_a_grapheme() -> None:
    text = "a\U0001f468\u200d\U0001f469b"  # a, a 3-code-point family, b
    segments = row_segments(text, 0, 5, [(2, 5, Style(bold=True))], Style())
    # The highlight starts inside the family emoji (at the joiner): it takes all of it.
    assert [(s.text, s.style) for s in segments] == [
        ("a", Style()),
        ("\U0001f468\u200d\U0001f469b", Style(bold=True)),
    ]


def test_ranges_in_finds_matches_meeting_a_row() -> None:
    ranges = [(0, 3), (5, 8), (10, 12)]
    ends = [3, 8, 12]
    assert ranges_in(ranges, ends, 3, 10) == [(5, 8)]
    assert ranges_in(ranges, ends, 2, 11) == [(0, 3), (5, 8), (10, 12)]

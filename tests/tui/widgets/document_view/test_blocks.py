"""Fenced code and pipe tables: which lines stay unwrapped, how their rows are laid out,
clipped to a window of cells and shifted, with offsets worked out by hand."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.tui.widgets.document_view.blocks import Block, find_blocks
from labeler.tui.widgets.document_view.layout import UNWRAPPED_LIMIT, Layout
from labeler.tui.widgets.document_view.pan import Shifts, clamp, first_shown, follow

DOC = "Intro words here.\n| a | b |\n|---|---|\n\n```py\n    x = 1  # long comment\n```\nEnd."
# Offsets: table 18..27 and 28..37; blank 38; fence 39..44; code 45..70; fence 71..74.


def test_a_table_run_and_a_fenced_block_with_its_fences() -> None:
    assert find_blocks(DOC) == [Block(18, 37), Block(39, 74)]
    assert DOC[18:37] == "| a | b |\n|---|---|"
    assert DOC[39:74] == "```py\n    x = 1  # long comment\n```"


@pytest.mark.parametrize(
    ("text", "blocks"),
    [
        ("```\ncode", [Block(0, 8)]),  # unclosed: to the end, as CommonMark
        ("~~~\n```\n~~~~\nafter", [Block(0, 12)]),  # ``` cannot close ~~~; ~~~~ can
        ("````\n```\n````", [Block(0, 13)]),  # a shorter fence does not close
        ("```\n``` x\n```", [Block(0, 13)]),  # a closing fence has nothing after it
        ("``` a`b\nnot code", []),  # a backtick fence's info has no backtick
        ("   | indented |\n    | four: no |", [Block(0, 15)]),
        ("| a |\n| b |\nprose\n| c |", [Block(0, 11), Block(18, 23)]),
        ("```\n| in code |\n```", [Block(0, 19)]),  # a table inside code is code
        ("text with | a pipe\nand ``` inside", []),
        ("", []),
    ],
)
def test_find_blocks(text: str, blocks: list[Block]) -> None:
    assert find_blocks(text) == blocks


def test_block_lines_are_one_row_each_and_prose_still_wraps() -> None:
    layout = Layout(DOC, 8, find_blocks(DOC))
    # "Intro words here." wraps at 8 (0, 6, 12); every block line is one row.
    assert layout.starts == [0, 6, 12, 18, 28, 38, 39, 45, 71, 75]
    assert [layout.block_of(r) for r in range(layout.rows)] == [
        None, None, None, 0, 0, None, 1, 1, 1, None,
    ]  # fmt: skip
    assert layout.row_span(7) == (45, 70)  # the indentation is part of the row
    assert layout.block_cells(1) == 25


def test_a_line_over_the_limit_wraps_even_in_a_block() -> None:
    text = "```\n" + "x" * (UNWRAPPED_LIMIT + 1) + "\n```"
    layout = Layout(text, 1000, find_blocks(text))
    # 2,001 cells at 1,000: three rows, not in the block; the fences are.
    assert layout.rows == 5 and layout.block_of(1) is None and layout.block_of(4) == 0


def test_window_of_a_plain_row() -> None:
    layout = Layout(DOC, 8, find_blocks(DOC))
    assert layout.window(7, 4, 9) == (49, 54, 0)  # "x = 1"
    assert layout.window(7, 20, 40) == (65, 70, 0)  # clipped at the line's end
    assert layout.window(7, 30, 40) == (70, 70, 0)  # nothing left to draw


def test_window_never_cuts_a_wide_character() -> None:
    text = "| 日本 |"  # columns: | 0, space 1, 日 2-3, 本 4-5, space 6, | 7
    layout = Layout(text, 4, find_blocks(text))
    assert layout.rows == 1
    assert layout.window(0, 3, 6) == (3, 4, 1)  # 日 is cut by 3: a blank, then 本
    assert layout.window(0, 0, 3) == (0, 2, 0)  # 日 does not fit in 2..3
    assert layout.column_of(3) == 4 and layout.offset_at(0, 5) == 3


def test_follow_moves_the_least_that_shows_the_column() -> None:
    assert follow(0, 9, 10) == 0
    assert follow(0, 10, 10) == 1  # first shown 2, last 10
    assert first_shown(1) == 2
    assert follow(5, 6, 10) == 5 and follow(5, 5, 10) == 4  # 5 sits under the ‹
    assert follow(5, 1, 10) == 0 and follow(5, 0, 10) == 0


def test_clamp_stops_where_the_widest_line_ends() -> None:
    assert clamp(100, 30, 10) == 21  # shows columns 22..30: the end and the cursor after it
    assert clamp(-4, 30, 10) == 0
    assert clamp(3, 8, 10) == 0  # the block fits


def test_shifts_follow_an_offset_per_block_and_map_screen_cells_to_columns() -> None:
    layout, shifts = Layout(DOC, 8, find_blocks(DOC)), Shifts()
    shifts.show(layout, 70, 10)  # the code line's end, column 25: shift 16
    assert shifts.get(layout, 1, 10) == 16 and shifts.get(layout, 0, 10) == 0
    assert shifts.column(layout, 7, 1, 10) == 17  # cell 1 of the code row shows column 17
    assert shifts.column(layout, 2, 1, 10) == 1  # a prose row is never shifted
    shifts.show(layout, 2, 10)  # an offset in prose moves nothing
    assert shifts.get(layout, 1, 10) == 16
    assert shifts.get(layout, 1, 30) == 0  # the whole block fits a wider pane
    shifts.move(layout, 0, 50, 4)  # the table's widest line is 9 cells: at most 6
    assert shifts.get(layout, 0, 4) == 6
    shifts.clear()
    assert shifts.get(layout, 1, 10) == 0


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="|`~ \n\tab日\u0301", max_size=200), st.integers(2, 12))
def test_any_text_gives_whole_line_blocks_and_rows_that_cover_it(text: str, width: int) -> None:
    blocks = find_blocks(text)
    line_starts = {0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")}
    for before, after in pairwise(blocks):
        assert before.end < after.start
    for b in blocks:
        assert b.start in line_starts and (b.end == len(text) or text[b.end] == "\n")
    layout = Layout(text, width, blocks)
    assert layout.starts == sorted(set(layout.starts)) and line_starts <= set(layout.starts)
    for row in range(layout.rows):
        start, end = layout.row_span(row)
        block = layout.block_of(row)
        if block is not None:  # a whole line of a block, and every cell maps into it
            assert start in line_starts and blocks[block].start <= start <= blocks[block].end
            for column in range(layout.row_cells(row) + 1):
                assert start <= layout.offset_at(row, column) <= end
            first, last, pad = layout.window(row, 1, width)
            assert start <= first <= last <= end and pad in (0, 1, 2, 3)

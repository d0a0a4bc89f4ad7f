"""Pilot tests of the document view alone: double and triple clicks, and code and table
lines shown unwrapped and shifted. Every click is checked against what is drawn under
the mouse, so the offsets a person picks are the characters they see."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.pilot import Pilot

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.base import ThemedApp
from labeler.tui.widgets.document_view import DocumentView, Mark, Role
from tests.tui.conftest import QUIET

TABLE = (
    "| Plan | Devices | History kept | Support window | Price per month | Notes on it | Renewal |"
)
CODE = "    return hmac.compare_digest(expected, parts['v1'])  # in constant time, always"
TEXT = (
    "Refunds take five days. Cards are credited.\n"
    "\n"
    f"{TABLE}\n"
    "```python\n"
    "def verify(body, header, secret, tolerance=300):\n"
    f"{CODE}\n"
    "```\n"
    "Closing   words.\n"
)
SIZE = (60, 12)
"""The view fills the screen: 58 cells of text, the 59th for `›`, then the scroll bar."""


class Host(ThemedApp):
    """One document view, focused, showing TEXT; it keeps what the view asks to add."""

    def __init__(self) -> None:
        super().__init__()
        self.added: list[tuple[int, int]] = []

    def compose(self) -> ComposeResult:
        yield DocumentView()

    def on_mount(self) -> None:
        view = self.query_one(DocumentView)
        view.load("guide.md", TEXT)
        view.focus()

    def on_document_view_selection_made(self, made: DocumentView.SelectionMade) -> None:
        self.added.append((made.start, made.end))


def view_of(pilot: Pilot[None]) -> DocumentView:
    return pilot.app.screen.query_one(DocumentView)


def drawn(pilot: Pilot[None]) -> list[str]:
    """The text of every screen row of the view, as painted."""
    view = view_of(pilot)
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


def row_with(pilot: Pilot[None], needle: str) -> int:
    return next(y for y, line in enumerate(drawn(pilot)) if needle in line)


async def test_code_and_table_lines_stay_whole_and_keep_their_indentation() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        rows = drawn(pilot)
        table, code = rows[row_with(pilot, "| Plan")], rows[row_with(pilot, "return")]
        assert table == TABLE[:58] + "›"  # clipped, not wrapped: the next row is the fence
        assert code == CODE[:58] + "›" and code.startswith("    return")
        assert rows[row_with(pilot, "| Plan") + 1].startswith("```python")
        assert rows[0].startswith("Refunds take five days.")  # prose still soft-wraps


async def test_the_cursor_past_the_edge_shifts_the_block_and_back() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        view.go_to(TEXT.index(CODE))
        await pilot.press("end")
        assert view.cursor == TEXT.index(CODE) + len(CODE)
        line = drawn(pilot)[row_with(pilot, "always")]
        # Shifted so the cursor after "always" is in the last text cell: 81 - 58 + 1 = 24.
        assert line == "‹" + CODE[25:] + "  "
        fence = drawn(pilot)[row_with(pilot, "always") - 2]
        assert fence == "‹" + " " * 58  # "```python" lies wholly left of the shift
        await pilot.press("home")
        assert drawn(pilot)[row_with(pilot, "return")] == CODE[:58] + "›"


async def test_a_click_on_a_shifted_line_lands_on_the_character_under_the_mouse() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        view.go_to(TEXT.index(CODE) + len(CODE))
        await pilot.pause()
        y = row_with(pilot, "always")
        x = drawn(pilot)[y].index("constant") + 3
        await pilot.click(DocumentView, offset=(x, y))
        assert view.cursor == TEXT.index("constant") + 3
        assert TEXT[view.cursor] == drawn(pilot)[y][x] == "s"
        await pilot.double_click(DocumentView, offset=(x, y))
        start, end = view.selection or (0, 0)
        assert (start, end) == (TEXT.index("constant"), TEXT.index("constant") + 8)
        assert TEXT[start:end] == "constant"
        await pilot.press("a")
        assert pilot.app.added == [(start, end)]  # type: ignore[attr-defined]


async def test_double_click_selects_a_word_and_triple_click_a_sentence() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        await pilot.click(DocumentView, offset=(10, 0))  # "t|a|ke"
        assert (view.cursor, view.selection) == (10, None)
        await pilot.double_click(DocumentView, offset=(10, 0))
        assert view.selection == (8, 12) and TEXT[8:12] == "take"
        await pilot.triple_click(DocumentView, offset=(27, 0))  # in "Cards"
        assert view.selection == (24, 43) and TEXT[24:43] == "Cards are credited."


async def test_double_click_on_white_space_or_a_blank_line_only_moves_the_cursor() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        await pilot.double_click(DocumentView, offset=(3, 1))  # the blank line, 44
        assert (view.cursor, view.selection) == (44, None)
        await pilot.triple_click(DocumentView, offset=(3, 1))
        assert (view.cursor, view.selection) == (44, None)
        y = row_with(pilot, "Closing")
        await pilot.double_click(DocumentView, offset=(9, y))  # between "Closing" and "words"
        assert view.selection is None and TEXT[view.cursor] == " "
        # The space right after a word is that word's end, as `w` has it.
        await pilot.double_click(DocumentView, offset=(7, y))
        start, end = view.selection or (0, 0)
        assert TEXT[start:end] == "Closing"
        # …and the space right after a sentence is that sentence's end.
        await pilot.triple_click(DocumentView, offset=(23, 0))
        assert view.selection == (0, 23)


async def test_a_drag_still_selects_and_across_a_shifted_line_maps_each_end() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        await pilot.mouse_down(DocumentView, offset=(0, 0))
        await pilot.hover(DocumentView, offset=(7, 0))
        await pilot.mouse_up(DocumentView, offset=(7, 0))
        assert view.selection == (0, 7)
        await pilot.press("greater_than_sign")  # the cursor is in prose: every block shifts
        rows = drawn(pilot)
        # Half of 58 is 29: the table starts at column 30, after the ‹; the code block
        # (81 cells) stops at 81 + 1 - 58 = 24, where its end shows.
        assert rows[2] == "‹" + TABLE[30:87] + "›" and rows[5] == "‹" + CODE[25:] + "  "
        assert rows[0].startswith("Refunds")  # prose does not move
        table_y = row_with(pilot, TABLE[30:40])
        await pilot.mouse_down(DocumentView, offset=(1, table_y))
        await pilot.hover(DocumentView, offset=(10, table_y))
        await pilot.mouse_up(DocumentView, offset=(10, table_y))
        start, end = view.selection or (0, 0)
        assert TEXT[start:end] == TABLE[30:39] == rows[2][1:10]


async def test_pan_keys_shift_the_cursors_block_and_stop_at_its_edges() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        view.go_to(TEXT.index(TABLE))
        await pilot.pause()
        y = row_with(pilot, "| Plan")
        await pilot.press("greater_than_sign", "greater_than_sign", "greater_than_sign")
        # The table is 92 cells: the shift stops at 92 + 1 - 58 = 35, the line's end shows.
        assert drawn(pilot)[y] == "‹" + TABLE[36:] + "  "
        assert not drawn(pilot)[row_with(pilot, "return")].startswith("‹")  # not the code
        await pilot.press("less_than_sign", "less_than_sign")
        assert drawn(pilot)[y] == TABLE[:58] + "›"
        assert view.cursor == TEXT.index(TABLE)  # panning leaves the cursor alone


async def test_the_wheel_sideways_or_with_shift_shifts_the_block_under_the_mouse() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        y = row_with(pilot, "| Plan")

        async def wheel(kind: type[events.MouseEvent], row: int, shift: bool = False) -> None:
            pilot.app.post_message(kind(None, 5, row, 0, 0, 0, shift, False, False, 5, row))
            await pilot.pause()

        await wheel(events.MouseScrollRight, y)
        assert drawn(pilot)[y] == "‹" + TABLE[5:62] + "›"  # one notch: 4 cells
        await wheel(events.MouseScrollDown, y, shift=True)
        assert drawn(pilot)[y] == "‹" + TABLE[9:66] + "›"
        await wheel(events.MouseScrollUp, y, shift=True)
        await wheel(events.MouseScrollLeft, y)
        assert drawn(pilot)[y] == TABLE[:58] + "›"
        before = drawn(pilot)
        await wheel(events.MouseScrollRight, 0)  # over prose: nothing moves
        assert drawn(pilot) == before


async def test_find_and_go_to_show_a_match_beyond_the_edge() -> None:
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        assert view.find("Notes on") == 1
        await pilot.pause()
        start, end = view.selection or (0, 0)
        assert TEXT[start:end] == "Notes on"
        line = drawn(pilot)[row_with(pilot, "Notes on")]
        assert line.startswith("‹") and "Notes on" in line
        view.go_to(TEXT.index("'v1'"))
        await pilot.pause()
        assert "'v1'" in drawn(pilot)[row_with(pilot, "compare")]


async def test_a_word_double_clicked_in_shifted_code_is_stored_as_drawn(tmp_path: Path) -> None:
    corpus = Corpus.from_texts({"guide.md": TEXT})
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    store.add_query("Is the comparison constant time?", annotator="ann")
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        view = view_of(pilot)
        view.go_to(TEXT.index(CODE) + len(CODE))
        await pilot.pause()
        y = row_with(pilot, "always")
        x = drawn(pilot)[y].index("constant") + 2
        assert drawn(pilot)[y].startswith("‹")  # the line is shifted
        await pilot.double_click(DocumentView, offset=(x, y))
        await pilot.press("a")
        (span,) = store.query("q-0001").evidence
        assert (span.start, span.end) == (TEXT.index("constant"), TEXT.index("constant") + 8)
        assert span.quote == TEXT[span.start : span.end] == "constant"
    store.close()


async def test_a_text_file_gets_the_same_blocks_and_indented_prose_keeps_its_spaces() -> None:
    notes = f"{TABLE}\n      an indented paragraph in a plain text file, long enough to wrap\n"
    async with Host().run_test(size=SIZE) as pilot:
        view_of(pilot).load("notes.txt", notes)
        await pilot.pause()
        rows = drawn(pilot)
        assert rows[0] == TABLE[:58] + "›"
        assert rows[1].startswith("      an indented paragraph")  # soft-wrapped, spaces kept
        assert rows[2].startswith("enough to wrap")


async def test_a_click_on_a_shifted_row_of_wide_characters_lands_on_the_one_drawn() -> None:
    row = "| 日本語の表 | " + "x" * 60 + " | 東京の本社 |"
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        view.load("wide.md", row + "\n")
        view.go_to(len(row))
        await pilot.pause()
        line = drawn(pilot)[0]
        assert line.startswith("‹") and line.rstrip().endswith("東京の本社 |")
        x = cell_len(line[: line.index("本社")])  # the cell where 本 is drawn
        await pilot.click(DocumentView, offset=(x, 0))
        assert view.cursor == row.index("本社") and row[view.cursor] == "本"
        await pilot.click(DocumentView, offset=(x + 1, 0))  # 本's second cell: still 本
        assert view.cursor == row.index("本社")


async def test_a_span_over_a_shifted_table_row_is_drawn_on_its_own_characters() -> None:
    start = TEXT.index("Notes on it")
    mark = Mark(start, start + len("Notes on it"), Role.CURRENT, 1, "q-0001", "ann")
    async with Host().run_test(size=SIZE) as pilot:
        view = view_of(pilot)
        view.set_marks([mark])
        await pilot.press("greater_than_sign", "greater_than_sign")  # to the table's end
        strip = view.render_line(row_with(pilot, "Notes on it"))
        span = view.get_component_rich_style("document-view--span-current", partial=True)
        lit = "".join(s.text for s in strip if s.style and s.style.bgcolor == span.bgcolor)
        assert lit == "Notes on it" == TEXT[mark.start : mark.end]

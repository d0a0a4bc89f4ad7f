"""The query list: one line per query on Textual's line API, so 100,000 queries cost a page.

An `OptionList` measures every option whenever the width changes; this list draws only
the rows on screen, from light store rows (no spans), and indexes ids only when asked. When
the cursor moves to another query it tells its screen at once (`FollowsList`); it posts
`Selected` on enter or a double click; the screen decides what that means.

Why not a `Highlighted` message: a posted message is handled after the screen has drawn
the list's moved row, and Textual draws the next frame one to two frame periods later
(17–33 ms at 60 fps), so every `J`/`K` cost two frames. Told in the key's own handler,
the list's row and the new query land in one frame.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from labeler.core.display import shown
from labeler.core.store import QueryRow
from labeler.core.values import Status

GLYPHS = {Status.DRAFT: "○", Status.LABELLED: "◐", Status.REVIEWED: "●"}
"""Status at a glance: empty, half, full."""


_NUMBERED = re.compile(r"q-(\d+)")
"""An id spanlab handed out; the list shows its number only (the panel shows it whole)."""


def short_id(query_id: str) -> str:
    """`0024` for q-0024: at 80 columns every column of the list is the question's."""
    found = _NUMBERED.fullmatch(query_id)
    return found.group(1) if found else query_id


def prompt(q: QueryRow) -> Text:
    """One line: status glyph, short id, span count (∅: abstains, +: ten or more), text."""
    count = "∅" if q.abstain else str(q.spans) if q.spans < 10 else "+"
    line = Text(no_wrap=True, overflow="ellipsis", end="")
    line.append(GLYPHS[q.status] + " ")
    line.append(short_id(q.id), style="bold")
    line.append(" ")
    line.append(count, style="dim")
    line.append(" " + shown(" ".join(q.text.split()), lines=False))
    return line


@runtime_checkable
class FollowsList(Protocol):
    """A screen that makes the list's highlighted query current."""

    def query_highlighted(self, query_id: str) -> None:
        """The cursor moved to `query_id` by a key or a click (not by the screen itself)."""


class QueryList(ScrollView, can_focus=True):
    """Queries in order; the screen sets them with `show` and redraws one with `refresh_query`."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"query-list--cursor", "query-list--cursor-blurred"}
    DEFAULT_CSS = """
    QueryList {
        height: 1fr;
        background: $surface;
        color: $foreground;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
        & > .query-list--cursor { background: $block-cursor-background; color: $block-cursor-foreground; text-style: bold; }
        & > .query-list--cursor-blurred { background: $block-cursor-blurred-background; color: $block-cursor-blurred-foreground; }
    }
    """  # noqa: E501
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move(-1_000_000_000)", "First", show=False),
        Binding("end", "move(1_000_000_000)", "Last", show=False),
        Binding("enter", "select", "Label it", show=False),
    ]

    @dataclass
    class Selected(Message):
        """Enter (or a click) on a query: the annotator wants to label it."""

        query_list: QueryList
        query_id: str

        @property
        def control(self) -> QueryList:
            return self.query_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.queries: list[QueryRow] = []
        """The queries listed, in order."""
        self.highlighted: int | None = None
        """Index of the query under the cursor."""
        self._rows: dict[str, int] | None = None

    @property
    def ids(self) -> list[str]:
        return [q.id for q in self.queries]

    @property
    def current_id(self) -> str | None:
        return None if self.highlighted is None else self.queries[self.highlighted].id

    def _row_of(self, query_id: str) -> int | None:
        """Where a query is listed: the highlighted row at once, else through an index
        built on first use (most lookups are for the query under the cursor)."""
        at = self.highlighted
        if at is not None and at < len(self.queries) and self.queries[at].id == query_id:
            return at
        if self._rows is None:
            self._rows = {q.id: i for i, q in enumerate(self.queries)}
        return self._rows.get(query_id)

    def show(self, queries: Sequence[QueryRow], current: str | None) -> None:
        """List `queries` with `current` (else the first) under the cursor, quietly."""
        self.queries = list(queries)
        self._rows = None
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.queries))
        if current is None:  # nothing is current: no row is, either
            self.highlighted = None
            self.refresh()
            return
        ids = [q.id for q in self.queries]
        self._move_to(ids.index(current) if current in ids else 0, announce=False)
        self.refresh()
        # Scrolling clamps to the height the list had before these rows: once laid out
        # with them, scroll again, or a current row below the old end stays out of sight.
        self.call_after_refresh(self.keep_in_view)

    def refresh_query(self, q: QueryRow) -> None:
        row = self._row_of(q.id)
        if row is not None:
            self.queries[row] = q
            self.refresh()

    # -- painting --------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        row = round(self.scroll_y) + y
        if row >= len(self.queries):
            return Strip.blank(width, base)
        line = prompt(self.queries[row])
        line.truncate(width, overflow="ellipsis", pad=True)
        strip = Strip(list(line.render(self.app.console)), width)
        if row == self.highlighted:
            name = "query-list--cursor" if self.has_focus else "query-list--cursor-blurred"
            strip = strip.apply_style(self.get_component_rich_style(name, partial=True))
        return strip.apply_style(base) if base else strip

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.queries))
        self.call_after_refresh(self.keep_in_view)  # a new height: the current row stays seen

    def keep_in_view(self) -> None:
        """Scroll just enough that the row under the cursor is on screen."""
        if self.highlighted is None:
            return
        top, height = round(self.scroll_y), max(1, self.scrollable_content_region.height)
        if self.highlighted < top:
            self.scroll_to(y=self.highlighted, animate=False, force=True)
        elif self.highlighted >= top + height:
            self.scroll_to(y=self.highlighted - height + 1, animate=False, force=True)

    # -- moving ------------------------------------------------------------------------------

    def _move_to(self, row: int | None, *, announce: bool = True) -> None:
        if row is not None and self.queries:
            row = min(max(row, 0), len(self.queries) - 1)
        changed, was, top = row != self.highlighted, self.highlighted, self.scroll_offset.y
        self.highlighted = row if self.queries else None
        if self.highlighted is None:
            return
        self.keep_in_view()
        if was is not None and self.scroll_offset.y == top:  # two rows changed, not twenty
            self.refresh_line(was)
            self.refresh_line(self.highlighted)
        else:
            self.refresh()
        if changed and announce and isinstance(self.screen, FollowsList):
            self.screen.query_highlighted(self.queries[self.highlighted].id)

    def action_move(self, step: int) -> None:
        self._move_to(0 if self.highlighted is None else self.highlighted + step)

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.scrollable_content_region.height - 1))

    def action_select(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.Selected(self, self.queries[self.highlighted].id))

    def on_click(self, event: events.Click) -> None:
        row = round(self.scroll_y) + event.y
        if row < len(self.queries):
            self._move_to(row)
            if event.chain > 1:
                self.action_select()

    def move_to(self, query_id: str) -> None:
        """Put the cursor on a query (quietly: the screen already knows)."""
        self._move_to(self._row_of(query_id), announce=False)

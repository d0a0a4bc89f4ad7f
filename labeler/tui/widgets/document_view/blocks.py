"""Lines the document view shows unwrapped: fenced code and Markdown pipe tables.

Soft-wrapping a table row or a line of code at the pane's edge breaks its columns and its
indentation, so these lines are drawn whole and shifted sideways instead. They are found
once per document by one regex search in C for line starts that can open such a line;
only those lines are looked at in Python, so prose costs nothing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_CANDIDATE = re.compile(r"\n(?= {0,3}(?:```|~~~|\|))")
"""A newline before a line that may be a fence or a table row (searched in C)."""
_LINE = re.compile(r" {0,3}(?:(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)|\|)")
"""A fence (CommonMark: up to three spaces, three or more ` or ~) or a table row."""


class Block(NamedTuple):
    """A run of whole lines drawn unwrapped."""

    start: int
    """Offset of its first line's first character."""
    end: int
    """Offset of its last line's end (its newline, or the end of the text)."""


def _closes(m: re.Match[str], opening: str) -> bool:
    """A closing fence: the opening's character, at least as many, nothing after."""
    fence = m["fence"]
    same = fence is not None and fence[0] == opening[0] and len(fence) >= len(opening)
    return same and not m["info"].strip()


def _line_starts(text: str) -> list[int]:
    starts = [m.end() for m in _CANDIDATE.finditer(text)]
    return [0, *starts] if _LINE.match(text) else starts


class _Scan:
    """The fence and table run open while walking candidate lines in order."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.blocks: list[Block] = []
        self.fence: tuple[str, int] | None = None  # the opening fence and its offset
        self.table: Block | None = None

    def line(self, pos: int) -> None:
        end = self.text.find("\n", pos)
        end = len(self.text) if end < 0 else end
        m = _LINE.match(self.text, pos, end)
        if self.fence is not None:
            if m is not None and _closes(m, self.fence[0]):
                self.blocks.append(Block(self.fence[1], end))
                self.fence = None
        elif m is not None and m["fence"] is None:
            self._table_row(pos, end)
        elif m is not None and not (m["fence"][0] == "`" and "`" in m["info"]):
            self._close_table()  # (a backtick fence's info string has no backtick)
            self.fence = (m["fence"], pos)

    def _table_row(self, pos: int, end: int) -> None:
        if self.table is not None and self.table.end + 1 == pos:  # the very next line
            self.table = Block(self.table.start, end)
        else:
            self._close_table()
            self.table = Block(pos, end)

    def _close_table(self) -> None:
        if self.table is not None:
            self.blocks.append(self.table)
            self.table = None

    def done(self) -> list[Block]:
        self._close_table()
        if self.fence is not None:  # an unclosed fence runs to the end (CommonMark)
            self.blocks.append(Block(self.fence[1], len(self.text)))
        return sorted(self.blocks)


def find_blocks(text: str) -> list[Block]:
    """Fenced code blocks (fences included) and runs of lines starting with `|`, in order."""
    scan = _Scan(text)
    for pos in _line_starts(text):
        scan.line(pos)
    return scan.done()

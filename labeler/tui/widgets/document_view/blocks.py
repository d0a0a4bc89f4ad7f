"""Lines the document view shows unwrapped: fenced code and Markdown pipe tables.

Soft-wrapping a table row or a line of code at the pane's edge breaks its columns and its
indentation, so these lines are drawn whole and shifted sideways instead. They are found
once per document: a regex search in C finds the line starts that can open a block, and
one more match finds where each block ends, so neither prose nor a block's lines are
walked in Python. Found by content in every document, `.txt` too: a fence or a pipe table
in a text file is Markdown pasted there, and wrapping it helps no one.
"""

from __future__ import annotations

import re
from itertools import chain
from typing import NamedTuple

_CANDIDATE = re.compile(r"\n(?= {0,3}(?:```|~~~|\|))")
"""A newline before a line that may be a fence or a table row (searched in C)."""
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
"""An opening fence (CommonMark: up to three spaces, three or more ` or ~, an info string)."""
_TABLE = re.compile(r" {0,3}\|[^\n]*(?:\n {0,3}\|[^\n]*)*")
"""A run of contiguous lines that start with `|`."""


class Block(NamedTuple):
    """A run of whole lines drawn unwrapped."""

    start: int
    """Offset of its first line's first character."""
    end: int
    """Offset of its last line's end (its newline, or the end of the text)."""


def _closing(fence: str) -> re.Pattern[str]:
    """A line closing `fence`: its character, at least as many, nothing after but blanks."""
    return re.compile(rf"\n {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*(?=\n|\Z)")


def _block_at(text: str, pos: int) -> Block | None:
    """The block that starts at line start `pos`, if one does."""
    fence = _FENCE.match(text, pos)
    if fence is None:
        table = _TABLE.match(text, pos)
        return None if table is None else Block(pos, table.end())
    chars, info = fence.groups()
    if chars[0] == "`" and "`" in info:  # not a fence: inline code
        return None
    close = _closing(chars).search(text, fence.end())
    return Block(pos, len(text) if close is None else close.end())  # unclosed: to the end


def find_blocks(text: str) -> list[Block]:
    """Fenced code blocks (fences included) and runs of lines starting with `|`, in order."""
    blocks: list[Block] = []
    after = 0
    starts = chain((0,), (m.end() for m in _CANDIDATE.finditer(text)))
    for pos in starts:
        if pos >= after and (block := _block_at(text, pos)) is not None:
            blocks.append(block)
            after = block.end + 1
    return blocks

"""Markdown blocks found line by line: headings, fenced code, tables, and text.

Only the structure the markdown splitter must respect is recognised (ATX headings, ``` or
~~~ fences, pipe tables); everything else is text. Blank lines join the block before
them and leading blank lines the first block, so the blocks tile the document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_DELIMITER = re.compile(r" {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class Block:
    """One markdown block and where its parts are."""

    kind: str
    """heading | fence | table | text."""
    start: int
    """First code point (0 for the first block)."""
    end: int
    """End, exclusive, after any blank lines that follow it."""
    head_end: int
    """End of the heading line, the fence's opening line, or the table's delimiter row."""
    lines: tuple[int, ...] = ()
    """Starts of the lines after the head (code lines, table rows), for cutting between."""
    level: int = 0
    """Heading level 1..6."""


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, the end after its newline."""
    out: list[tuple[int, int]] = []
    pos = 0
    while pos < len(text):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl + 1
        out.append((pos, end))
        pos = end
    return out


def parse_blocks(text: str) -> list[Block]:
    lines = _lines(text)
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        start, end = lines[i]
        line = text[start:end]
        if not line.strip():
            if blocks:  # a blank line ends the block before it and belongs to it
                last = blocks[-1]
                blocks[-1] = Block(
                    last.kind, last.start, end, last.head_end, last.lines, last.level
                )
            i += 1
            continue
        block, i = _block_at(text, lines, i)
        if not blocks and block.start > 0:
            block = Block(block.kind, 0, block.end, block.head_end, block.lines, block.level)
        blocks.append(block)
    if not blocks and text:  # blank lines only: still one block, so they get a chunk
        blocks.append(Block("text", 0, len(text), len(text)))
    return blocks


def _block_at(text: str, lines: list[tuple[int, int]], i: int) -> tuple[Block, int]:
    """The block starting at line i, and the index of the line after it."""
    start, end = lines[i]
    line = text[start:end].rstrip("\n")
    heading = _HEADING.match(line)
    if heading:
        return Block("heading", start, end, end, level=len(heading.group(1))), i + 1
    fence = _FENCE.match(line)
    if fence:
        return _fence(text, lines, i, fence.group(1))
    if _is_table_start(text, lines, i):
        return _table(text, lines, i)
    j = i + 1
    while j < len(lines) and not _interrupts(text, lines, j):
        j += 1
    return Block("text", start, lines[j - 1][1], end), j


def _fence(text: str, lines: list[tuple[int, int]], i: int, marker: str) -> tuple[Block, int]:
    closing = re.compile(rf" {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
    j = i + 1
    while j < len(lines) and not closing.match(text[lines[j][0] : lines[j][1]]):
        j += 1
    last = min(j, len(lines) - 1)  # an unclosed fence runs to the end
    starts = tuple(s for s, _ in lines[i + 1 : last + 1])
    return Block("fence", lines[i][0], lines[last][1], lines[i][1], starts), last + 1


def _is_table_start(text: str, lines: list[tuple[int, int]], i: int) -> bool:
    if i + 1 >= len(lines) or "|" not in text[lines[i][0] : lines[i][1]]:
        return False
    delimiter = text[lines[i + 1][0] : lines[i + 1][1]].rstrip("\n")
    return "|" in delimiter and _DELIMITER.match(delimiter) is not None


def _table(text: str, lines: list[tuple[int, int]], i: int) -> tuple[Block, int]:
    j = i + 2
    while j < len(lines):
        row = text[lines[j][0] : lines[j][1]]
        if not row.strip() or "|" not in row:
            break
        j += 1
    starts = tuple(s for s, _ in lines[i + 2 : j])
    return Block("table", lines[i][0], lines[j - 1][1], lines[i + 1][1], starts), j


def _interrupts(text: str, lines: list[tuple[int, int]], j: int) -> bool:
    """Whether line j ends a text block: blank, heading, fence or table start."""
    line = text[lines[j][0] : lines[j][1]].rstrip("\n")
    return (
        not line.strip()
        or _HEADING.match(line) is not None
        or _FENCE.match(line) is not None
        or _is_table_start(text, lines, j)
    )

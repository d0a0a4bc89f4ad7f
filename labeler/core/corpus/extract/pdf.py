"""PDF to canonical text with pypdfium2 (design §22): a box per character, read in order.

pdfium's text counts characters and inserts its own line ends and spaces; this reads it
character by character through its indices, so every line's box is known, cuts a line where
a wide gap parts two columns or table cells, orders two-column pages column by column, drops
running headers and footers, joins hyphenated words and expands ligatures.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from labeler.core.corpus.extract.base import Extracted, Extractor, SourceError, library, version_of
from labeler.core.corpus.extract.places import Box, MapBuilder

RULES = "3"
"""Version of the rules below; part of the extractor's version."""
MAX_PAGES = 500
"""Longest PDF read; a longer one is skipped, named (a page cap bounds time and memory)."""
GAP = 2.5
"""A gap wider than this many character heights parts two segments of a line (the taller of
the two characters beside it: a period's box is a fifth of a digit's, and `1.5` is one
number)."""
LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
             "\ufb05": "st", "\ufb06": "st"}  # fmt: skip
"""Presentation forms NFC keeps: written out as the letters they join."""
SETTINGS = (("columns", "auto"), ("gap", GAP), ("headers", "drop"), ("hyphens", "join"),
            ("max_pages", MAX_PAGES))  # fmt: skip
"""The project's settings: what its documents are bound under."""
CHOICES: dict[str, tuple[str, ...]] = {
    "columns": ("auto", "off"), "headers": ("drop", "keep"), "hyphens": ("join", "keep"),
    "tables": ("rows", "off"),
}  # fmt: skip
"""Settings an extractor comparison may change (§22), each with its values, default first."""


@dataclass(frozen=True)
class Rules:
    """Which of the rules below run: all of them for the project's extraction; an
    alternative extraction (an extractor candidate) turns some off."""

    columns: bool = True
    """Order two-column pages column by column (off: pdfium's order)."""
    headers: bool = True
    """Drop running headers and footers."""
    hyphens: bool = True
    """Join words hyphenated across lines."""
    tables: bool = True
    """Write lines of cells as pipe rows, one table over a page break."""

    @classmethod
    def of(cls, settings: dict[str, str]) -> Rules:
        """From settings already checked against CHOICES (a value other than the first is
        off)."""
        return cls(**{k: settings.get(k, v[0]) == v[0] for k, v in CHOICES.items()})

    def settings(self) -> tuple[tuple[str, object], ...]:
        """The settings these rules are bound under: the project's own when all run."""
        if self == Rules():
            return SETTINGS
        changed = {k: v[0] if getattr(self, k) else v[1] for k, v in CHOICES.items()}
        return tuple(sorted({**dict(SETTINGS), **changed}.items()))


@dataclass
class Segment:
    """Characters of one line between wide gaps, with their union box."""

    chars: list[str] = field(default_factory=list)
    """The characters, ligatures expanded."""
    box: list[float] = field(default_factory=lambda: [1e9, 1e9, -1e9, -1e9])
    """left, bottom, right, top."""

    inked: bool = False
    """Whether it holds a character other than a space."""

    def take(self, ch: str, box: tuple[float, float, float, float]) -> None:
        self.chars.append(LIGATURES.get(ch, ch))
        if not ch.isspace():
            self.inked = True
            b = self.box
            b[0], b[1] = min(b[0], box[0]), min(b[1], box[1])
            b[2], b[3] = max(b[2], box[2]), max(b[3], box[3])

    @property
    def text(self) -> str:
        return "".join(self.chars).strip()

    @property
    def bounds(self) -> Box:
        return (self.box[0], self.box[1], self.box[2], self.box[3])


Line = list[Segment]


def _lines(textpage: Any, raw: Any) -> list[Line]:
    """The page's lines as pdfium orders them, each cut into segments at wide gaps."""
    lines: list[Line] = []
    line: Line = [Segment()]
    last: tuple[float, float, float, float] | None = None
    for i in range(textpage.count_chars()):
        ch = chr(raw.FPDFText_GetUnicode(textpage, i) or 0xFFFD)
        if ch in "\r\n":
            if any(s.inked for s in line):
                lines.append([s for s in line if s.inked])
            line, last = [Segment()], None
            continue
        box = textpage.get_charbox(i)
        if ch.isspace():
            line[-1].take(" ", box)
            continue
        height = max(box[3] - box[1], last[3] - last[1] if last else 0.0, 1.0)
        if last is not None and box[0] - last[2] > GAP * height and line[-1].inked:
            line.append(Segment())
        line[-1].take(ch, box)
        last = box
    if any(s.inked for s in line):
        lines.append([s for s in line if s.inked])
    return lines


WIDE = 0.2
"""A column's lines are at least this fraction of the page's width (table cells are not)."""


def _side(seg: Segment, mid: float) -> str:
    """`L` or `R` for a segment on one side of the page's middle, `F` across it."""
    x0, _, x1, _ = seg.bounds
    return "L" if x1 <= mid + 2 else "R" if x0 >= mid - 2 else "F"


def _two_columns(lines: list[Line], width: float) -> bool:
    """At least two wide lines wholly left of the middle, and two wholly right."""
    mid = width / 2
    wide = [_side(s, mid) for line in lines for s in line
            if s.bounds[2] - s.bounds[0] >= WIDE * width]  # fmt: skip
    return wide.count("L") >= 2 and wide.count("R") >= 2


def _reading_order(lines: list[Line], width: float) -> list[Line]:
    """Column by column where the page has two columns of text; else pdfium's order. A line
    across the middle (a title, a full-width paragraph) ends the columns above it."""
    if not _two_columns(lines, width):
        return lines
    out: list[Line] = []
    left: list[Line] = []
    right: list[Line] = []
    for line in lines:
        sides = [_side(s, width / 2) for s in line]
        if "F" not in sides:
            left.extend([s] for s, k in zip(line, sides, strict=True) if k == "L")
            right.extend([s] for s, k in zip(line, sides, strict=True) if k == "R")
        else:
            out += left + right + [line]
            left, right = [], []
    return out + left + right


EDGE = 0.08
"""Running headers and footers lie in this fraction of the page's height at top or bottom."""


def _at_edge(line: Line, height: float) -> bool:
    top = max(s.box[3] for s in line)
    bottom = min(s.box[1] for s in line)
    return top > (1 - EDGE) * height or bottom < EDGE * height


def _running(pages: list[tuple[list[Line], float]]) -> set[str]:
    """Lines at a page's top or bottom edge on at least half the pages, digits aside
    (`Page 3`): running headers and footers."""
    if len(pages) < 2:
        return set()
    seen: Counter[str] = Counter()
    for lines, height in pages:
        seen.update({_key(line) for line in lines if _at_edge(line, height)})
    return {k for k, n in seen.items() if n >= 2 and n * 2 >= len(pages)}


def _key(line: Line) -> str:
    return re.sub(r"\d+", "#", " ".join(s.text for s in line))


def _joins(line: Line, following: Line | None) -> bool:
    """A word hyphenated across lines: `exam-` then a lower-case `ple`."""
    text = line[-1].text
    return (len(line) == 1 and following is not None and text.endswith("-")
            and text[-2:-1].isalpha() and following[0].text[:1].islower())  # fmt: skip


def _heads_table(lines: list[Line], i: int) -> bool:
    """Line `i` is the first of two or more rows with the same number of cells: a table's
    header, so a Markdown splitter keeps it with its rows."""
    cells = len(lines[i])
    before = i > 0 and len(lines[i - 1]) == cells
    return not before and i + 1 < len(lines) and len(lines[i + 1]) == cells


def _write_page(
    out: MapBuilder, kept: list[Line], page: int, continued: bool, rules: Rules = Rules()
) -> None:
    """The page's lines: one per line, table-like lines as pipe rows, hyphens joined.
    `continued`: its first line carries on a table from the page before (no header)."""
    for i, line in enumerate(kept):
        rows = rules.tables and len(line) > 1
        joins = rules.hyphens and _joins(line, kept[i + 1] if i + 1 < len(kept) else None)
        if rows:
            out.write("| ")
        for j, seg in enumerate(line):
            if j:
                out.write(" | " if rows else " ")
            out.add(seg.text[:-1] if joins else seg.text, page, seg.bounds)
        if rows:
            out.write(" |")
            if _heads_table(kept, i) and not (continued and i == 0):
                out.write("\n|" + " --- |" * len(line))
        if not joins:
            out.line()


def _continues(before: list[Line], page: list[Line]) -> bool:
    """A page that opens with a row of as many cells as the row closing the page before:
    one table over a page break."""
    return bool(before and page) and len(page[0]) > 1 and len(page[0]) == len(before[-1])


def extract_pdf(raw: bytes, file: str, rules: Rules = Rules()) -> Extracted:
    """A PDF's text, page by page; SourceError names what is wrong with it. `rules`: the
    project's own unless an extractor comparison turns some off."""
    pdfium = library("pypdfium2", "pdf", file)
    pdfium_raw = library("pypdfium2.raw", "pdf", file)
    try:
        doc = pdfium.PdfDocument(raw)
    except pdfium.PdfiumError as exc:
        reason = str(exc)
        if "password" in reason.lower():
            raise SourceError("the PDF is encrypted (it needs a password)", file=file) from None
        raise SourceError(f"cannot be read as a PDF (truncated or damaged: {reason})",
                          file=file) from None  # fmt: skip
    try:
        count = len(doc)
        if count > MAX_PAGES:
            raise SourceError(f"the PDF has {count} pages; at most {MAX_PAGES} are read",
                              file=file, hint="split it into parts")  # fmt: skip
        pages: list[tuple[list[Line], float]] = []
        for n in range(count):
            page = doc[n]
            textpage = page.get_textpage()
            lines = _lines(textpage, pdfium_raw)
            if rules.columns:
                lines = _reading_order(lines, page.get_width())
            pages.append((lines, page.get_height()))
            textpage.close()
            page.close()
    finally:
        doc.close()
    if not any(lines for lines, _ in pages):
        raise SourceError("the PDF has no text (scanned pages? spanlab does no OCR)", file=file,
                          hint="run OCR on it first, or remove it from the corpus")  # fmt: skip
    out = MapBuilder()
    running = _running(pages) if rules.headers else set()
    before: list[Line] = []
    for n, (lines, height) in enumerate(pages, 1):
        kept = [ln for ln in lines if not (_at_edge(ln, height) and _key(ln) in running)]
        continued = rules.tables and _continues(before, kept)
        if continued:
            out.line()
        else:
            out.block()
        _write_page(out, kept, n, continued, rules)
        before = kept or before
    blank = tuple(n for n, (lines, _) in enumerate(pages, 1) if not lines)
    text, places = out.finish(pages=len(pages), blank=blank)
    return Extracted(text, places, identity(rules))


def identity(rules: Rules = Rules()) -> Extractor:
    """This extractor's name, version and settings under `rules` (known before any file is
    read: the extraction cache's key)."""
    return Extractor("pdf:pypdfium2", f"{version_of('pypdfium2')}+{RULES}", rules.settings())

"""Where each stretch of an extracted text came from (design §22): the source map.

An extractor appends text piece by piece with the place each piece was read from, so the
map is made by the same arithmetic that makes the text (never by searching afterwards).
Offsets are code points into the canonical text, end exclusive, like every other offset.
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any

from labeler.core.corpus.canonical import OffsetMap

Box = tuple[float, float, float, float]
"""A PDF box in points from the page's lower left corner: left, bottom, right, top."""


@dataclass(frozen=True)
class Place:
    """One stretch of canonical text and where it is in the source."""

    start: int
    """First code point of the stretch."""
    end: int
    """End of the stretch (exclusive)."""
    page: int = 0
    """1-based page of a PDF; 0 for sources without pages."""
    box: Box | None = None
    """The stretch's box on its page (PDF only)."""
    path: str = ""
    """An HTML element path (`body/main/table/tr[2]/td`) or a DOCX place (`paragraph 4`)."""

    def describe(self) -> str:
        """The place in words: `page 3 (72,540-300,552)`, or the path."""
        if self.page:
            where = f"page {self.page}"
            if self.box is not None:
                where += " ({:.0f},{:.0f}-{:.0f},{:.0f})".format(*self.box)
            return where
        return self.path

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"start": self.start, "end": self.end}
        if self.page:
            out["page"] = self.page
        if self.box is not None:
            out["box"] = [round(v, 2) for v in self.box]
        if self.path:
            out["path"] = self.path
        return out


@dataclass(frozen=True)
class SourceMap:
    """Every extracted stretch of one document, in text order."""

    places: tuple[Place, ...]
    """Non-overlapping, sorted by start; text between them (separators) has no place."""
    pages: int = 0
    """How many pages the source has (PDF), 0 otherwise."""
    blank: tuple[int, ...] = ()
    """Pages with no text at all (a scan, §22): named when the corpus is read, never silent."""

    def at(self, offset: int) -> Place | None:
        """The place holding `offset`, or None when it is a separator spanlab wrote."""
        i = bisect.bisect_right([p.start for p in self.places], offset) - 1
        if i >= 0 and self.places[i].start <= offset < self.places[i].end:
            return self.places[i]
        return None

    def within(self, start: int, end: int) -> list[Place]:
        """The places a span `start..end` touches, in order."""
        return [p for p in self.places if p.start < end and start < p.end]

    def page_range(self, start: int, end: int) -> tuple[int, int] | None:
        """First and last page of a span, or None when the source has no pages."""
        pages = [p.page for p in self.within(start, end) if p.page]
        return (min(pages), max(pages)) if pages else None

    def describe(self, start: int, end: int) -> str:
        """A span's place in words: `page 2`, `pages 2-3`, or the first element's path."""
        pages = self.page_range(start, end)
        if pages is not None:
            return f"page {pages[0]}" if pages[0] == pages[1] else f"pages {pages[0]}-{pages[1]}"
        inside = self.within(start, end)
        return inside[0].path if inside else ""

    def to_json(self) -> dict[str, Any]:
        return {"pages": self.pages, "places": [p.to_json() for p in self.places]}


@dataclass
class MapBuilder:
    """Text and places, appended together; `finish` makes the canonical text (NFC, LF)."""

    parts: list[str] = field(default_factory=list)
    """The text so far, in pieces."""
    places: list[Place] = field(default_factory=list)
    """The places so far."""
    pos: int = 0
    """Length of the text so far."""

    def add(self, text: str, page: int = 0, box: Box | None = None, path: str = "") -> None:
        """Text read from the source at a place."""
        if text:
            self.places.append(Place(self.pos, self.pos + len(text), page, box, path))
            self.write(text)

    def write(self, text: str) -> None:
        """Text spanlab writes itself (separators, `# `, `| `): no place."""
        self.parts.append(text)
        self.pos += len(text)

    def tail(self, n: int) -> str:
        """The last `n` characters written (fewer at the start)."""
        out = ""
        for part in reversed(self.parts):
            out = part + out
            if len(out) >= n:
                break
        return out[-n:]

    def block(self) -> None:
        """End the current block with a blank line (nothing at the very start)."""
        if self.pos:
            self.write("\n\n"[len(self.tail(2)) - len(self.tail(2).rstrip("\n")) :])

    def line(self) -> None:
        """End the current line (nothing at the start of a line)."""
        if self.pos and self.tail(1) != "\n":
            self.write("\n")

    def finish(self, pages: int = 0, blank: tuple[int, ...] = ()) -> tuple[str, SourceMap]:
        """The canonical text (one final newline) and its map; offsets move through NFC
        where it rewrote text."""
        raw = "".join(self.parts).rstrip("\n")
        places = [p for p in self.places if p.start < len(raw)]
        if unicodedata.is_normalized("NFC", raw) and "\r" not in raw:
            fixed = [replace(p, end=min(p.end, len(raw))) for p in places]
            return (raw + "\n" if raw else ""), SourceMap(tuple(fixed), pages, blank)
        moved = OffsetMap(raw)
        text = moved.canonical
        fixed = [replace(p, start=moved.to_canonical(p.start),
                         end=moved.to_canonical(min(p.end, len(raw)))) for p in places]  # fmt: skip
        return text + "\n", SourceMap(tuple(p for p in fixed if p.start < p.end), pages, blank)

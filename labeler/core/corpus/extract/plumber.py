"""PDF to text with pdfplumber (design §22): a second library, for extractors judged as candidates.

pdfplumber (on pdfminer.six) lays each page's characters out in its own reading order and
hands back, with its text, the character each position came from (its text map); this writes
that text line by line, each line placed on its page with the box of its characters, so the
map is made by the same arithmetic as the text. No rule of spanlab's runs on it: it is the
library's text, to be compared with the project's.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from typing import Any

from labeler.core.corpus.extract.base import Extracted, Extractor, SourceError, library, version_of
from labeler.core.corpus.extract.pdf import MAX_PAGES
from labeler.core.corpus.extract.places import Box, MapBuilder

RULES = "1"
"""Version of the writing below; part of the extractor's version."""
NAME = "pdf:pdfplumber"
CHOICES: dict[str, tuple[str, ...]] = {"layout": ("off", "on"), "order": ("position", "flow")}
"""Settings an extractor comparison may give, each with its values, pdfplumber's default
first: `layout` keeps the page's spacing (columns stay apart, in spaces); `order = "flow"`
keeps the characters in the order the PDF draws them (pdfplumber's `use_text_flow`)."""
TOLERANCE = 3
"""pdfplumber's own x and y tolerances (points), fixed: part of the bound settings."""

Char = tuple[str, Mapping[str, Any] | None]
"""One entry of pdfplumber's text map: its text, and the character it came from (None for
a space or line end pdfplumber wrote)."""


def _damaged(exc: BaseException, file: str) -> SourceError:
    reason = exc.args[0] if type(exc).__name__ == "PdfminerException" and exc.args else exc
    if type(reason).__name__ in ("PDFPasswordIncorrect", "PDFEncryptionError"):
        return SourceError("the PDF is encrypted (it needs a password)", file=file)
    why = str(reason)[:120] or type(reason).__name__
    return SourceError(f"cannot be read as a PDF (truncated or damaged: {why})", file=file)


def _lines(chars: list[Char]) -> Iterator[list[Char]]:
    """The text map cut at the line ends pdfplumber wrote."""
    line: list[Char] = []
    for text, obj in chars:
        if obj is None and text == "\n":
            yield line
            line = []
        else:
            line.append((text.replace("\r", " ").replace("\n", " "), obj))
    yield line


def _box(line: list[Char]) -> Box:
    """The union box of a line's characters, in points from the page's lower left."""
    objs = [o for _, o in line if o is not None]
    return (min(float(o["x0"]) for o in objs), min(float(o["y0"]) for o in objs),
            max(float(o["x1"]) for o in objs), max(float(o["y1"]) for o in objs))  # fmt: skip


def _write_page(out: MapBuilder, chars: list[Char], page: int) -> bool:
    """The page's lines, each with its box; a run of blank lines (layout) as one. Whether
    the page had any text."""
    blank, wrote = False, False
    for line in _lines(chars):
        inked = [i for i, (t, o) in enumerate(line) if o is not None and t.strip()]
        if not inked:
            blank = wrote
            continue
        if blank:
            out.block()
        blank, wrote = False, True
        first, last = inked[0], inked[-1] + 1
        out.write("".join(t for t, _ in line[:first]))
        out.add("".join(t for t, _ in line[first:last]), page, _box(line[first:last]))
        out.line()
    return wrote


def _open(plumber: Any, raw: bytes, file: str) -> Any:
    try:
        return plumber.open(io.BytesIO(raw))
    except MemoryError:
        raise
    except Exception as exc:  # pdfminer's own errors, whatever their class
        raise _damaged(exc, file) from None


def extract_pdfplumber(
    raw: bytes, file: str, settings: Mapping[str, str] | None = None
) -> Extracted:
    """A PDF's text by pdfplumber, page by page; SourceError names what is wrong with it.
    `settings`: checked against CHOICES (none: pdfplumber's defaults)."""
    plumber = library("pdfplumber", "pdfplumber", file)
    chosen = {k: (settings or {}).get(k, v[0]) for k, v in CHOICES.items()}
    options = {"layout": chosen["layout"] == "on", "use_text_flow": chosen["order"] == "flow",
               "x_tolerance": TOLERANCE, "y_tolerance": TOLERANCE}  # fmt: skip
    out, blank = MapBuilder(), []
    with _open(plumber, raw, file) as doc:
        try:
            pages = doc.pages
            if len(pages) > MAX_PAGES:
                raise SourceError(f"the PDF has {len(pages)} pages; at most {MAX_PAGES} are "
                                  "read", file=file, hint="split it into parts")  # fmt: skip
            for n, page in enumerate(pages, 1):
                out.block()
                if not _write_page(out, list(page.get_textmap(**options).tuples), n):
                    blank.append(n)
                page.close()
        except (SourceError, MemoryError):
            raise
        except Exception as exc:  # a damaged page: pdfminer raises many kinds
            raise _damaged(exc, file) from None
    if len(blank) == len(pages):
        raise SourceError("the PDF has no text (scanned pages? spanlab does no OCR)", file=file,
                          hint="run OCR on it first, or remove it from the corpus")  # fmt: skip
    text, places = out.finish(pages=len(pages), blank=tuple(blank))
    return Extracted(text, places, identity(chosen))


def identity(settings: Mapping[str, str] | None = None) -> Extractor:
    """This extractor's name, version (pdfplumber's and pdfminer.six's) and settings."""
    chosen = {k: (settings or {}).get(k, v[0]) for k, v in CHOICES.items()}
    bound = {**chosen, "max_pages": MAX_PAGES, "x_tolerance": TOLERANCE, "y_tolerance": TOLERANCE}
    version = f"{version_of('pdfplumber')}/{version_of('pdfminer.six')}+{RULES}"
    return Extractor(NAME, version, tuple(sorted(bound.items())))

"""DOCX to Markdown-like canonical text with python-docx (design §22).

A DOCX is a zip: its entries' declared sizes are checked before anything is inflated, so a
zip bomb is refused unread. Body paragraphs and tables are read in document order: heading
styles become `#`, list paragraphs `-` (indented by level), tables pipe rows under a header.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from labeler.core.corpus.extract.base import Extracted, Extractor, SourceError, library, version_of
from labeler.core.corpus.extract.places import MapBuilder

RULES = "1"
"""Version of the rules below; part of the extractor's version."""
MAX_ENTRIES = 5000
"""Most zip entries a DOCX may hold."""
MAX_INFLATED = 200 << 20
"""Most bytes its entries may inflate to, all together."""
MAX_RATIO = 200
"""Most an entry of over 1 MiB may inflate, relative to its compressed size."""
SETTINGS = (("max_entries", MAX_ENTRIES), ("max_inflated", MAX_INFLATED),
            ("max_ratio", MAX_RATIO))  # fmt: skip


def check_zip(raw: bytes, file: str) -> None:
    """A zip holding `word/document.xml`, whose declared sizes are within bounds."""
    try:
        infos = zipfile.ZipFile(io.BytesIO(raw)).infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise SourceError("not a DOCX: it is not a zip file (is its extension right?)",
                          file=file) from None  # fmt: skip
    if len(infos) > MAX_ENTRIES:
        raise SourceError(f"the DOCX holds {len(infos):,} entries; at most {MAX_ENTRIES:,}",
                          file=file)  # fmt: skip
    total = sum(i.file_size for i in infos)
    if total > MAX_INFLATED:
        raise SourceError(f"the DOCX inflates to {total:,} bytes; at most {MAX_INFLATED:,} "
                          "are read (a zip bomb?)", file=file)  # fmt: skip
    for info in infos:
        if info.file_size > 1 << 20 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise SourceError(f"its entry {info.filename[:80]!r} inflates {info.file_size:,} "
                              "bytes from far fewer (a zip bomb?)", file=file)  # fmt: skip
    if "word/document.xml" not in {i.filename for i in infos}:
        raise SourceError("not a DOCX: a zip without word/document.xml", file=file)


def _paragraph(out: MapBuilder, para: Any, where: str) -> None:
    text = para.text.replace("\n", " ").strip()
    if not text:
        return
    style = (para.style.name if para.style is not None else "") or ""
    props = para._p.pPr
    numbered = props is not None and props.numPr is not None
    if style.startswith("Heading ") and style[8:].isdigit():
        out.block()
        out.write("#" * min(int(style[8:]), 6) + " ")
    elif style == "Title":
        out.block()
        out.write("# ")
    elif numbered or style.startswith("List"):
        level = props.numPr.ilvl.val if numbered and props.numPr.ilvl is not None else 0
        out.line()
        out.write("  " * int(level) + "- ")
        out.add(text, path=where)
        out.line()
        return
    else:
        out.block()
    out.add(text, path=where)
    out.block()


def _table(out: MapBuilder, table: Any, number: int) -> None:
    out.block()
    for r, row in enumerate(table.rows, 1):
        seen: list[Any] = []
        out.write("|")
        for c, cell in enumerate(row.cells, 1):
            if any(cell._tc is s for s in seen):  # a merged cell repeats
                continue
            seen.append(cell._tc)
            out.write(" ")
            out.add(" ".join(cell.text.split()), path=f"table {number} row {r} cell {c}")
            out.write(" |")
        if r == 1:
            out.write("\n|" + " --- |" * len(seen))
        out.line()
    out.block()


def extract_docx(raw: bytes, file: str) -> Extracted:
    """A DOCX's text in document order; SourceError names what is wrong with it."""
    check_zip(raw, file)
    docx = library("docx", "docx", file)
    paragraph_cls = library("docx.text.paragraph", "docx", file).Paragraph
    table_cls = library("docx.table", "docx", file).Table
    try:
        doc = docx.Document(io.BytesIO(raw))
    except Exception as exc:  # python-docx raises many kinds on a damaged file
        raise SourceError(f"cannot be read as a DOCX ({type(exc).__name__})", file=file) from None
    out = MapBuilder()
    paragraphs = tables = 0
    for child in doc.element.body.iterchildren():
        tag = str(child.tag).rsplit("}", 1)[-1]
        if tag == "p":
            paragraphs += 1
            _paragraph(out, paragraph_cls(child, doc), f"paragraph {paragraphs}")
        elif tag == "tbl":
            tables += 1
            _table(out, table_cls(child, doc), tables)
    text, places = out.finish()
    if not text.strip():
        raise SourceError("the DOCX has no text", file=file)
    return Extracted(text, places, identity())


def identity() -> Extractor:
    """This extractor's name, version and settings (the extraction cache's key)."""
    return Extractor("docx:python-docx", f"{version_of('python-docx')}+{RULES}", SETTINGS)

"""Which extractor reads a source, and the hash it is bound under (design §22).

The suffix names the format and the first bytes must agree (a `.pdf` that is a zip is an
error naming the file, not a crash). The document's hash covers the source bytes, the
extractor's name, version and settings and the text: a new extractor version is a corpus
change, and spans on it are checked like spans on an edited file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import PurePosixPath

from labeler.core.corpus.canonical import BoundText, sha256_hex
from labeler.core.corpus.extract import docx, html, pdf
from labeler.core.corpus.extract.base import Extracted, Extractor, SourceError
from labeler.core.corpus.extract.bounded import extract_pdf_bounded
from labeler.core.corpus.extract.cache import ExtractionCache

BINDING = "extracted/1"
"""Version of the bound hash below."""
MAX_SOURCE_BYTES = 200 << 20
"""Largest source file read at all."""
EXTRACTORS: dict[str, Callable[[bytes, str], Extracted]] = {
    ".pdf": extract_pdf_bounded, ".html": html.extract_html, ".htm": html.extract_html,
    ".xhtml": html.extract_html, ".docx": docx.extract_docx,
}  # fmt: skip
"""Suffix -> extractor (a PDF in a bounded child process)."""
IDENTITIES: dict[str, Callable[[], Extractor]] = {
    ".pdf": pdf.identity, ".html": html.identity, ".htm": html.identity,
    ".xhtml": html.identity, ".docx": docx.identity,
}  # fmt: skip
"""Suffix -> the extractor's name, version and settings, known before reading (the cache's key)."""
EXTRACTED_SUFFIXES = tuple(EXTRACTORS)


def is_source(doc_id: str) -> bool:
    """Whether a document is extracted (PDF, HTML, DOCX) rather than read as text."""
    return PurePosixPath(doc_id).suffix.lower() in EXTRACTORS


def sniff(suffix: str, raw: bytes, file: str) -> None:
    """The first bytes agree with the suffix."""
    pdf = b"%PDF-" in raw[:1024]
    if suffix == ".pdf" and not pdf:
        raise SourceError("not a PDF: it does not start with %PDF- (is its extension right?)",
                          file=file)  # fmt: skip
    if suffix == ".docx" and not raw.startswith(b"PK\x03\x04"):
        kind = "a PDF" if pdf else "not a zip file"
        raise SourceError(f"not a DOCX: it is {kind} (is its extension right?)", file=file)


def bound_hash(extracted: Extracted, raw: bytes | str) -> str:
    """sha256 over the binding version, the extractor, the source bytes (or their sha256
    hex digest) and the text."""
    return _bound(extracted.extractor, raw, extracted.text)


def _bound(extractor: Extractor, raw: bytes | str, text: str) -> str:
    h = hashlib.sha256(f"{BINDING}\n{extractor.fingerprint()}\n".encode())
    source = raw if isinstance(raw, str) else sha256_hex(raw)
    h.update(f"{source}\n{sha256_hex(text.encode())}\n".encode())
    return "sha256:" + h.hexdigest()


def bound_from(doc_id: str, raw: bytes, text: str, bound: str) -> bool:
    """Whether a source's document (its `text`, bound under `bound`) was read from `raw`:
    the project's extractor binds these bytes and that text under that very hash."""
    return is_source(doc_id) and _bound(IDENTITIES[_suffix(doc_id)](), raw, text) == bound


def _suffix(doc_id: str) -> str:
    return PurePosixPath(doc_id).suffix.lower()


def extract(
    doc_id: str, raw: bytes, file: str, cache: ExtractionCache | None = None
) -> tuple[BoundText, Extracted]:
    """A source's text, knowing the hash it is bound under, from `cache` when it holds the
    extraction of these bytes by this extractor; SourceError names the file."""
    suffix = PurePosixPath(doc_id).suffix.lower()
    if len(raw) > MAX_SOURCE_BYTES:
        raise SourceError(f"the file is {len(raw):,} bytes; at most {MAX_SOURCE_BYTES:,} are "
                          "read", file=file)  # fmt: skip
    sniff(suffix, raw, file)
    source = sha256_hex(raw)
    found = cache.get(source, IDENTITIES[suffix]()) if cache is not None else None
    if found is None:
        found = EXTRACTORS[suffix](raw, file)
        if cache is not None:
            cache.put(source, found)
    return BoundText(found.text, bound_hash(found, source)), found

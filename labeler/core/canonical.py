"""Canonical text and hashes (SPEC §2).

Offsets everywhere are code points into the canonical text, so the normalization is the
single place where raw bytes become text. It also keeps a map back to raw offsets, which
importers of formats with raw-text offsets need.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable

from labeler.core.errors import CorpusError

NORMALIZATION = "nfc-lf/1"
"""Version string of the canonicalization below; part of every corpus hash."""


def sha256_hex(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def decode(raw: bytes, *, file: str, encoding: str = "utf-8") -> str:
    """Decode bytes, dropping a leading BOM; invalid input names the byte offset."""
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8") and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
        bom = 3
    else:
        bom = 0
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"not valid {encoding}: {exc.reason}",
            file=file,
            offset=exc.start + bom,
            hint="fix the file or pass --encoding with the codec it is written in",
        ) from None
    except LookupError:
        raise CorpusError(f"unknown encoding {encoding!r}", file=file) from None


def canonicalize(text: str) -> str:
    """NFC, then CRLF and lone CR to LF. Nothing else changes."""
    text = unicodedata.normalize("NFC", text)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def canonical_from_bytes(raw: bytes, *, file: str, encoding: str = "utf-8") -> str:
    return canonicalize(decode(raw, file=file, encoding=encoding))


def doc_hash(canonical: str) -> str:
    return sha256_hex(canonical.encode("utf-8"))


def corpus_hash(doc_hashes: Iterable[tuple[str, str]]) -> str:
    """sha256 over the normalization line, then one `id\\thash` line per sorted doc."""
    h = hashlib.sha256(f"{NORMALIZATION}\n".encode())
    for doc_id, dh in sorted(doc_hashes):
        h.update(f"{doc_id}\t{dh}\n".encode())
    return "sha256:" + h.hexdigest()


class OffsetMap:
    """Maps code-point offsets in a raw (decoded, BOM-less) string to canonical offsets.

    Built by canonicalizing piece by piece: NFC is applied per run of characters that
    start with a starter (combining class 0), so composition never crosses a boundary we
    record; CRLF collapses to one position.
    """

    def __init__(self, raw: str) -> None:
        self._raw_to_canon: list[int] = []
        out: list[str] = []
        pos = 0
        i = 0
        n = len(raw)
        while i < n:
            j = i + 1
            if raw[i] == "\r" and j < n and raw[j] == "\n":
                j += 1
            else:
                while j < n and unicodedata.combining(raw[j]) != 0:
                    j += 1
            piece = canonicalize(raw[i:j])
            for _ in range(i, j):
                self._raw_to_canon.append(pos)
            out.append(piece)
            pos += len(piece)
            i = j
        self._raw_to_canon.append(pos)
        self.canonical = "".join(out)
        """The canonical text the map points into."""

    def to_canonical(self, raw_offset: int) -> int:
        if not 0 <= raw_offset < len(self._raw_to_canon):
            raise IndexError(raw_offset)
        return self._raw_to_canon[raw_offset]

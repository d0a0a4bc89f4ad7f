"""Canonical text and hashes (design §2).

Offsets everywhere are code points into the canonical text, so the normalization is the
single place where raw bytes become text. It also keeps a map back to raw offsets, which
importers of formats with raw-text offsets need.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import unicodedata
from collections.abc import Iterable, Iterator

from labeler.core.errors import CorpusError

NORMALIZATION = "nfc-lf/1"
"""Version string of the canonicalization below; part of every corpus hash."""


def sha256_hex(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def text_codec(encoding: str, *, file: str, key: str | None = None) -> str:
    """The codec's canonical name ("UTF8", "u8" -> "utf-8"), which must decode bytes to text.

    `rot13` or `base64` are codecs too, but not between bytes and text.
    """
    try:
        info = codecs.lookup(encoding)
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        raise CorpusError(f"unknown encoding {encoding!r}", file=file, key=key) from None
    if not getattr(info, "_is_text_encoding", True):
        raise CorpusError(f"{encoding!r} is not a text encoding", file=file, key=key)
    return info.name


def decode(raw: bytes, *, file: str, encoding: str = "utf-8") -> str:
    """Decode bytes, dropping a leading BOM; invalid input names the byte offset."""
    codec = text_codec(encoding, file=file)
    bom = 3 if codec == "utf-8" and raw.startswith(codecs.BOM_UTF8) else 0
    try:
        return raw[bom:].decode(codec)
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"not valid {encoding}: {exc.reason}",
            file=file,
            offset=exc.start + bom,
            hint="convert the file to UTF-8; only if every file of the corpus uses one other "
            "codec, run `spanlab init CORPUS --encoding CODEC`",
        ) from None


def canonicalize(text: str) -> str:
    """NFC, then CRLF and lone CR to LF. Nothing else changes."""
    text = unicodedata.normalize("NFC", text)
    if "\r" not in text:  # the common case: skip two more passes over the text
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def canonical_from_bytes(raw: bytes, *, file: str, encoding: str = "utf-8") -> str:
    return canonicalize(decode(raw, file=file, encoding=encoding))


class BoundText(str):
    """An extracted document's canonical text (design §22), carrying the hash it is bound
    under: that hash covers the source bytes and the extractor as well as the text, and
    every place that hashes a document's text (binding, saving a span, review) gets it."""

    bound_hash: str
    """`sha256:` over the extraction and the text (labeler.core.corpus.extract.read)."""

    def __new__(cls, text: str, bound_hash: str) -> BoundText:
        made = super().__new__(cls, text)
        made.bound_hash = bound_hash
        return made

    def __reduce__(self) -> tuple[type[BoundText], tuple[str, str]]:
        return (BoundText, (str(self), self.bound_hash))


def doc_hash(canonical: str) -> str:
    """sha256 of the text as UTF-8; an extracted text's own bound hash."""
    if isinstance(canonical, BoundText):
        return canonical.bound_hash
    return sha256_hex(canonical.encode("utf-8"))


def corpus_hash(doc_hashes: Iterable[tuple[str, str]]) -> str:
    """sha256 over the normalization line, then one `id\\thash` line per sorted doc."""
    h = hashlib.sha256(f"{NORMALIZATION}\n".encode())
    for doc_id, dh in sorted(doc_hashes):
        h.update(f"{doc_id}\t{dh}\n".encode())
    return "sha256:" + h.hexdigest()


_INERT = "\u0300"
"""Every code point below this is a starter that NFC never composes onto a predecessor."""

_CLUSTER = re.compile(r"[^\r\n\u0300-\U0010ffff]?[^\x00-\u02ff]+")
"""Code points NFC may change, with the code point before them they may compose onto
(never CR or LF: nothing composes onto them, and a CRLF must not be cut)."""


def _pieces(raw: str) -> Iterator[tuple[int, int]]:
    """A starter with the non-starters after it (CRLF stays whole): NFC's usual unit."""
    i, n = 0, len(raw)
    while i < n:
        j = i + 1
        if raw[i] == "\r" and j < n and raw[j] == "\n":
            j += 1
        else:
            while j < n and unicodedata.combining(raw[j]) != 0:
                j += 1
        yield i, j
        i = j


def _segments(raw: str, *, careful: bool) -> Iterator[tuple[int, int]]:
    """Runs of `raw` that canonicalize independently of their neighbours.

    A run may end before a code point below U+0300. With `careful`, it may also end
    before any piece whose canonical form does not change when joined to the run (Hangul
    jamo and some Indic vowel signs are starters that compose onto the starter before
    them, so they fail that test and join the run).
    """
    seg_start = seg_end = 0
    for i, j in _pieces(raw):
        if i > 0 and (
            raw[i] < _INERT
            or (
                careful
                and canonicalize(raw[seg_start:j])
                == canonicalize(raw[seg_start:i]) + canonicalize(raw[i:j])
            )
        ):
            yield seg_start, seg_end
            seg_start = i
        seg_end = j
    if seg_end:
        yield seg_start, seg_end


def _crlf_map(raw: str) -> list[int]:
    """Offsets for text already in NFC: each CRLF's LF disappears, shifting what follows."""
    out: list[int] = []
    done = dropped = 0
    for match in re.finditer("\r\n", raw):
        lf = match.start() + 1
        out.extend(range(done - dropped, lf - dropped))
        done, dropped = lf, dropped + 1
    out.extend(range(done - dropped, len(raw) + 1 - dropped))
    return out


class _Builder:
    """Accumulates the raw-to-canonical offsets and the canonical text, piece by piece."""

    def __init__(self) -> None:
        self.offsets: list[int] = []
        self.parts: list[str] = []
        self.pos = 0

    def canonical_stretch(self, raw: str) -> None:
        """Text already in NFC: offsets by arithmetic."""
        if "\r" not in raw:
            self.offsets.extend(range(self.pos, self.pos + len(raw)))
            self.add(raw)
            return
        self.offsets.extend(self.pos + x for x in _crlf_map(raw)[:-1])
        self.add(canonicalize(raw))

    def run(self, raw: str) -> None:
        """A run NFC may rewrite: every offset inside it maps to its start."""
        self.offsets.extend([self.pos] * len(raw))
        self.add(canonicalize(raw))

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += len(text)


def _runs_map(raw: str, *, careful: bool) -> tuple[list[int], str]:
    """Offsets for any text, with the text they point into.

    Stretches of code points below U+0300 are canonical already (but for CR) and map by
    arithmetic; only clusters of other code points go through `_segments`. Every cut
    lies before a code point below U+0300 or at a line end, where NFC cannot act.
    """
    out = _Builder()
    done = 0
    for match in _CLUSTER.finditer(raw):
        start, end = match.span()
        out.canonical_stretch(raw[done:start])
        cluster = match.group()
        for i, j in _segments(cluster, careful=careful):
            out.run(cluster[i:j])
        done = end
    out.canonical_stretch(raw[done:])
    out.offsets.append(out.pos)
    return out.offsets, "".join(out.parts)


class OffsetMap:
    """Maps code-point offsets in a raw (decoded, BOM-less) string to canonical offsets.

    Lines already in NFC map by arithmetic (only a CRLF collapses). Other lines are
    canonicalized run by run, cut only where NFC cannot act across the cut; an offset
    inside a run that NFC rewrote maps to the run's start. The careful cuts are checked
    against `canonicalize(raw)` and, should they ever disagree, only the provably safe
    cuts (before U+0000-U+02FF, which NFC never composes onto what precedes) are used.
    """

    def __init__(self, raw: str) -> None:
        self.canonical = canonicalize(raw)
        """The canonical text the map points into."""
        self._raw_to_canon = _crlf_map(raw)
        if not unicodedata.is_normalized("NFC", raw):
            self._raw_to_canon = self._runs(raw)

    def _runs(self, raw: str) -> list[int]:
        mapping, text = _runs_map(raw, careful=True)
        if text != self.canonical:
            mapping, text = _runs_map(raw, careful=False)
        if text != self.canonical:
            # Unreachable by the argument above; never hand out offsets that could be wrong.
            raise ValueError("cannot map offsets through the normalization of this text")
        return mapping

    def to_canonical(self, raw_offset: int) -> int:
        if not 0 <= raw_offset < len(self._raw_to_canon):
            raise IndexError(raw_offset)
        return self._raw_to_canon[raw_offset]

"""A corpus is a folder of plain-text documents read into canonical text (design §2).

Reading is all-or-nothing: one undecodable file stops the whole read with its name and
byte offset, so nothing half-ingested ever reaches the store. An evaluation reads with
`keep_text=False`: every file is read and hashed once, and a text is read again when asked
for (a few kept), so memory does not grow with the corpus (§6).
"""

from __future__ import annotations

import os
import re
import stat
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from labeler.core.corpus.canonical import NORMALIZATION, canonical_from_bytes, corpus_hash, doc_hash
from labeler.core.corpus.document_bytes import document_bytes
from labeler.core.corpus.extract.base import SourceError
from labeler.core.corpus.extract.cache import ExtractionCache
from labeler.core.corpus.extract.places import SourceMap
from labeler.core.corpus.extract.read import extract, is_source
from labeler.core.corpus.files import DEFAULT_RULE, FileRule, skipped_summary
from labeler.core.corpus.walk import shown, walk
from labeler.core.display import shown as display_shown
from labeler.core.errors import CorpusError

DOCUMENT_SUFFIXES = (".txt", ".md")
"""What a document an import creates (a SQuAD context) may be called."""


@dataclass(frozen=True)
class Document:
    id: str
    """POSIX path relative to the corpus folder."""
    text: str
    """Canonical text: offsets point into this."""
    hash: str
    """`sha256:` of the canonical text as UTF-8; for an extracted source, of the source bytes,
    the extractor and the text (§22)."""
    source: SourceMap | None = None
    """Where each stretch of an extracted text is in its PDF, HTML or DOCX source."""


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
"""C0 and C1 controls, DEL included: a tab or newline in an id would forge a hash line."""

_SURROGATE = re.compile("[\ud800-\udfff]")
"""Lone surrogates: a file name's undecodable bytes (surrogateescape), or a JSON escape."""


def check_doc_id(doc_id: str) -> str:
    """Reject ids that could escape the corpus folder, confuse a filesystem or the hash.

    The corpus hash's lines are `id<TAB>hash<LF>`; an id holds neither, and every hash is
    `sha256:` and 64 hex digits, so the lines split back into (id, hash) one way only.
    """
    if not doc_id:
        raise CorpusError("invalid document id '': it is empty", key="doc")
    if control := _CONTROL.search(doc_id):
        raise CorpusError(
            f"invalid document id {doc_id!r}: it holds the control character "
            f"U+{ord(control.group()):04X}",
            key="doc",
        )
    if _SURROGATE.search(doc_id):
        raise CorpusError(f"invalid document id {doc_id!r}: it is not valid UTF-8", key="doc")
    p = PurePosixPath(doc_id)
    if p.is_absolute() or ".." in p.parts or "\\" in doc_id or doc_id != p.as_posix():
        raise CorpusError(f"invalid document id {doc_id!r}", key="doc")
    return doc_id


def check_new_doc_id(doc_id: str) -> str:
    """An id an import may create: a valid id that a corpus read would find again."""
    check_doc_id(doc_id)
    p = PurePosixPath(doc_id)
    if any(part.startswith(".") for part in p.parts):
        raise CorpusError(f"invalid document id {doc_id!r}: a hidden name is never read", key="doc")
    if p.suffix.lower() not in DOCUMENT_SUFFIXES:
        raise CorpusError(f"invalid document id {doc_id!r}: not .md or .txt", key="doc")
    return doc_id


@dataclass(frozen=True)
class Corpus:
    """Documents by id, with the corpus hash that labels are bound to."""

    documents: Mapping[str, Document]
    """Every document, keyed by id."""
    root: Path | None = None
    """The folder it was read from, if any."""
    skipped: tuple[str, ...] = field(default=())
    """Files below the folder that are not documents (other extensions)."""
    passed_over: tuple[str, ...] = field(default=())
    """Entries not read, each with why: symlinked folders, dangling links, FIFOs."""
    normalization: str = NORMALIZATION
    """The canonicalization version."""
    follow_symlinks: bool = False
    """Whether it was read following links (the project's `follow_symlinks`): a later read
    of one of its files (an alternative extraction) follows them only then."""

    @property
    def hash(self) -> str:
        return corpus_hash(self._hashes().items())

    @property
    def doc_hashes(self) -> dict[str, str]:
        hashes = self._hashes()
        return {doc_id: hashes[doc_id] for doc_id in sorted(hashes)}

    def _hashes(self) -> Mapping[str, str]:
        if isinstance(self.documents, OnDemand):
            return self.documents.hashes
        return {d.id: d.hash for d in self.documents.values()}

    def __iter__(self) -> Iterator[Document]:
        return (self.documents[k] for k in sorted(self.documents))

    def __len__(self) -> int:
        return len(self.documents)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.documents

    def require_documents(self, rule: FileRule = DEFAULT_RULE) -> Corpus:
        """This corpus, unless it holds no document: then an error saying what was skipped."""
        if self.documents:
            return self
        where = str(self.root) if self.root is not None else None
        empty = ", every document was passed over" if self.passed_over else ", the folder is empty"
        found = f"; {skipped_summary(self.skipped)}" if self.skipped else empty
        raise CorpusError(f"the corpus holds no document{found}", file=where,
                          hint=f"documents are the files matching {rule.describe()}",
                          details=[f"skipped {p}" for p in self.passed_over[:10]])  # fmt: skip

    def texts(self) -> Mapping[str, str]:
        """Document id -> canonical text, each read when asked for if the corpus was read
        without keeping texts."""
        return _Texts(self)

    def text(self, doc_id: str) -> str:
        try:
            return self.documents[doc_id].text
        except KeyError:
            raise CorpusError(f"no document {doc_id!r} in the corpus", key="doc") from None

    def place(self, doc_id: str, start: int, end: int) -> str:
        """Where `start..end` of an extracted document is in its source (`page 3`, an HTML
        element's path, `paragraph 4`), or "" for a text document (§22)."""
        doc = self.documents.get(doc_id)
        source = doc.source if doc is not None else None
        return display_shown(source.describe(start, end), lines=False) if source else ""

    @classmethod
    def from_texts(cls, texts: Mapping[str, str]) -> Corpus:
        """An in-memory corpus; texts are canonicalized as if read from files."""
        docs: dict[str, Document] = {}
        for doc_id, raw in texts.items():
            check_doc_id(doc_id)
            try:
                data = raw.encode("utf-8")
            except UnicodeEncodeError as exc:  # a lone surrogate, say, from a JSON escape
                raise CorpusError(
                    f"text cannot be encoded as UTF-8: {exc.reason}", file=doc_id, offset=exc.start
                ) from None
            text = canonical_from_bytes(data, file=doc_id)
            docs[doc_id] = Document(doc_id, text, doc_hash(text))
        return cls(docs)

    @classmethod
    def read(
        cls, root: Path, *, encoding: str = "utf-8", follow_symlinks: bool = False,
        rule: FileRule = DEFAULT_RULE, keep_text: bool = True, cache: ExtractionCache | None = None,
    ) -> Corpus:  # fmt: skip
        """Read every document (`rule`) below `root`; raise on the first bad file, ingest
        nothing. Without `keep_text` only ids, paths and hashes stay in memory (`OnDemand`).
        PDF, HTML and DOCX extractions come from `cache` when it holds them (§22)."""
        if not root.is_dir():
            raise CorpusError("corpus folder does not exist or is not a folder", file=str(root))
        listing = walk(root, follow_symlinks=follow_symlinks)
        docs: dict[str, Document] = {}
        paths: dict[str, tuple[Path, str]] = {}
        files: dict[str, tuple[int, int, int]] = {}
        skipped: list[str] = []
        passed_over = list(listing.passed_over)
        for rel, path in listing.files:
            if not rule.is_document(rel):
                skipped.append(shown(rel))
                continue
            try:
                check_doc_id(rel)
            except CorpusError as exc:
                exc.file, exc.key = shown(str(path)), None
                raise
            try:
                doc = _read_document(rel, path, encoding, cache, follow=follow_symlinks)
            except SourceError as exc:
                passed_over.append(f"{shown(rel)} ({_why(exc)})")
                continue
            if doc.source is not None and doc.source.blank:
                passed_over.append(_blank_pages(rel, doc.source.blank))
            if keep_text:
                docs[rel] = doc
            else:
                paths[rel] = (path, doc.hash)
                files[rel] = _identity(path)
        found: Mapping[str, Document] = (
            docs if keep_text else OnDemand(paths, encoding, files, cache, follow=follow_symlinks)
        )
        return cls(found, root=root, skipped=tuple(skipped), passed_over=tuple(passed_over),
                   follow_symlinks=follow_symlinks)  # fmt: skip


class _Texts(Mapping[str, str]):
    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def __getitem__(self, doc_id: str) -> str:
        return self.corpus.documents[doc_id].text

    def __iter__(self) -> Iterator[str]:
        return iter(self.corpus.documents)

    def __len__(self) -> int:
        return len(self.corpus.documents)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.corpus.documents


class OnDemand(Mapping[str, Document]):
    """Documents read again from their files when asked for; the last few are kept, up to
    KEPT_CHARS code points. A file whose text no longer has the hash it was read with is
    an error naming it: the corpus changed under the run."""

    KEPT_CHARS = 4 << 20

    def __init__(
        self,
        paths: Mapping[str, tuple[Path, str]],
        encoding: str,
        files: Mapping[str, tuple[int, int, int]] | None = None,
        cache: ExtractionCache | None = None,
        *,
        follow: bool = True,
    ) -> None:
        self.paths, self.encoding, self.cache = dict(paths), encoding, cache
        self.follow = follow
        """Whether a link at a document's path is followed (the corpus read's setting)."""
        self.files = dict(files or {})
        """Document id -> (device, inode, size) of its file as first read."""
        self.hashes = {doc_id: h for doc_id, (_, h) in self.paths.items()}
        """Document id -> doc_hash, as first read."""
        self._kept: OrderedDict[str, Document] = OrderedDict()
        self._chars = 0

    def __getitem__(self, doc_id: str) -> Document:
        if (doc := self._kept.get(doc_id)) is not None:
            self._kept.move_to_end(doc_id)
            return doc
        path, expected = self.paths[doc_id]
        raw = _reread(path, self.files.get(doc_id), self.follow)
        try:
            doc = _document(doc_id, raw, path, self.encoding, self.cache)
        except SourceError:
            raise _changed(path) from None
        if doc.hash != expected:
            raise _changed(path)
        self._keep(doc)
        return doc

    def _keep(self, doc: Document) -> None:
        self._kept[doc.id] = doc
        self._chars += len(doc.text)
        while self._chars > self.KEPT_CHARS and len(self._kept) > 1:
            _, old = self._kept.popitem(last=False)
            self._chars -= len(old.text)

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.paths


def _read_document(
    doc_id: str, path: Path, encoding: str, cache: ExtractionCache | None = None, *,
    follow: bool = False,
) -> Document:  # fmt: skip
    """A listed document read: a link swapped in since the listing (unless links are followed),
    a FIFO or a device is refused naming the file, never waited on."""
    raw = document_bytes(doc_id, path, follow=follow)
    return _document(doc_id, raw, path, encoding, cache)


def _document(
    doc_id: str, raw: bytes, path: Path, encoding: str, cache: ExtractionCache | None = None
) -> Document:
    """A document from its bytes: extracted (PDF, HTML, DOCX) or decoded as text."""
    if is_source(doc_id):
        bound, found = extract(doc_id, raw, shown(str(path)), cache)
        return Document(doc_id, bound, bound.bound_hash, found.map)
    text = canonical_from_bytes(raw, file=str(path), encoding=encoding)
    return Document(doc_id, text, doc_hash(text))


def _why(exc: SourceError) -> str:
    """A source's error as a reason to skip it: message and hint, printable."""
    why = exc.message + (f"; {exc.hint}" if exc.hint else "")
    return display_shown(why, lines=False)


def _blank_pages(rel: str, blank: tuple[int, ...]) -> str:
    """A PDF's pages without text, named: the rest of it is read (§22)."""
    pages = ", ".join(str(n) for n in blank[:10]) + (", …" if len(blank) > 10 else "")
    return (f"{shown(rel)} page{'s' if len(blank) > 1 else ''} {pages} (no text on it: a "
            "scanned page? spanlab does no OCR; the other pages are read)")  # fmt: skip


def _identity(path: Path) -> tuple[int, int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino, info.st_size


def _changed(path: Path) -> CorpusError:
    return CorpusError("the document changed while spanlab was reading the corpus",
                       file=shown(str(path)), hint="run the command again")  # fmt: skip


def _reread(path: Path, identity: tuple[int, int, int] | None, follow: bool = True) -> bytes:
    """A document's bytes again, from the very file first read: opened without blocking (a
    FIFO put in its place never hangs the run) and refused unless it is that same regular
    file at that same size (a link to a device, a bigger file: the corpus changed); a link
    swapped in is not even opened unless links are followed."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError:
        raise _changed(path) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        same = identity is None or (info.st_dev, info.st_ino, info.st_size) == identity
        if not stat.S_ISREG(info.st_mode) or not same:
            raise _changed(path)
        os.set_blocking(fd, True)
        return handle.read(info.st_size + 1)

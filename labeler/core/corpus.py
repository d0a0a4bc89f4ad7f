"""A corpus is a folder of `.txt` and `.md` documents read into canonical text (SPEC §2).

Reading is all-or-nothing: one undecodable file stops the whole read with its name and
byte offset, so nothing half-ingested ever reaches the store.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from labeler.core.canonical import NORMALIZATION, canonical_from_bytes, corpus_hash, doc_hash
from labeler.core.errors import CorpusError

DOCUMENT_SUFFIXES = (".txt", ".md")


@dataclass(frozen=True)
class Document:
    id: str
    """POSIX path relative to the corpus folder."""
    text: str
    """Canonical text: offsets point into this."""
    hash: str
    """`sha256:` of the canonical text as UTF-8."""


def check_doc_id(doc_id: str) -> str:
    """Reject ids that could escape the corpus folder or confuse a filesystem."""
    if not doc_id or "\x00" in doc_id:
        raise CorpusError(f"invalid document id {doc_id!r}", key="doc")
    p = PurePosixPath(doc_id)
    if p.is_absolute() or ".." in p.parts or "\\" in doc_id or doc_id != p.as_posix():
        raise CorpusError(f"invalid document id {doc_id!r}", key="doc")
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
    normalization: str = NORMALIZATION
    """The canonicalization version."""

    @property
    def hash(self) -> str:
        return corpus_hash((d.id, d.hash) for d in self.documents.values())

    @property
    def doc_hashes(self) -> dict[str, str]:
        return {doc_id: self.documents[doc_id].hash for doc_id in sorted(self.documents)}

    def __iter__(self) -> Iterator[Document]:
        return (self.documents[k] for k in sorted(self.documents))

    def __len__(self) -> int:
        return len(self.documents)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.documents

    def text(self, doc_id: str) -> str:
        try:
            return self.documents[doc_id].text
        except KeyError:
            raise CorpusError(f"no document {doc_id!r} in the corpus", key="doc") from None

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
    def read(cls, root: Path, *, encoding: str = "utf-8") -> Corpus:
        """Read every document below `root`; raise on the first bad file, ingest nothing."""
        if not root.is_dir():
            raise CorpusError("corpus folder does not exist or is not a folder", file=str(root))
        docs: dict[str, Document] = {}
        skipped: list[str] = []
        for path in sorted(root.rglob("*")):
            if not path.is_file():
                continue
            rel = path.relative_to(root).as_posix()
            if any(part.startswith(".") for part in PurePosixPath(rel).parts):
                continue
            if path.suffix.lower() not in DOCUMENT_SUFFIXES:
                skipped.append(rel)
                continue
            check_doc_id(rel)
            text = canonical_from_bytes(path.read_bytes(), file=str(path), encoding=encoding)
            docs[rel] = Document(rel, text, doc_hash(text))
        return cls(docs, root=root, skipped=tuple(skipped))

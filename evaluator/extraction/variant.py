"""The corpus as an alternative extractor reads it (§22): a corpus variant.

Only the sources the alternative reads are extracted again, from the very bytes the project
read: read as the corpus reads a file, and checked against the hash its text is bound under
(a source changed since is named and left out). Every other document keeps its text, so
whatever differs is the extractor's doing. A source the alternative cannot read is left out
of the variant and named with why: its spans are lost there, as for a team that switched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evaluator.extraction.config import Alternative
from labeler.core.corpus.document_bytes import document_bytes, in_folder
from labeler.core.corpus.extract.read import bound_from, bound_hash
from labeler.core.corpus.folder import Corpus, Document
from labeler.core.display import shown
from labeler.core.errors import CorpusError


@dataclass(frozen=True)
class Variant:
    """One alternative's corpus, and what it did with each source."""

    alternative: Alternative
    """Which extraction made it."""
    corpus: Corpus
    """The project's corpus with the alternative's texts in place of its sources'."""
    extracted: tuple[str, ...]
    """Documents the alternative read, sorted."""
    failed: tuple[tuple[str, str], ...]
    """(document, why) for each source it could not read: left out of `corpus`."""
    changed: tuple[str, ...] = ()
    """Of `extracted`, those whose text differs from the project's."""


def _why(exc: CorpusError) -> str:
    return shown(exc.message + (f"; {exc.hint}" if exc.hint else ""), lines=False)


CHANGED = "changed since the corpus was read: not the bytes its text was bound from"
"""Why a source whose file no longer holds the project's bytes is left out."""


def variant(corpus: Corpus, alternative: Alternative) -> Variant:
    """The corpus as `alternative` reads it. Needs the folder the corpus was read from."""
    chosen = alternative.chosen
    documents: dict[str, Document] = {}
    extracted: list[str] = []
    failed: list[tuple[str, str]] = []
    changed: list[str] = []
    for doc_id in sorted(corpus.documents):
        if not chosen.reads(doc_id) or corpus.root is None:
            documents[doc_id] = corpus.documents[doc_id]
            continue
        try:
            doc, raw = _source(corpus, corpus.root, doc_id)
            found = chosen.extract(doc_id, raw, shown(doc_id))
        except CorpusError as exc:  # not the file read, or the extractor refused it
            failed.append((doc_id, _why(exc)))
            continue
        except Exception as exc:  # a library's own failure on one file: named, skipped
            failed.append((doc_id, f"the extractor failed ({type(exc).__name__})"))
            continue
        extracted.append(doc_id)
        documents[doc_id] = Document(doc_id, found.text, bound_hash(found, raw), found.map)
        if found.text != doc.text:
            changed.append(doc_id)
    return Variant(
        alternative,
        Corpus(
            documents,
            corpus.root,
            normalization=corpus.normalization,
            follow_symlinks=corpus.follow_symlinks,
        ),
        tuple(extracted),
        tuple(failed),
        tuple(changed),
    )


def _source(corpus: Corpus, root: Path, doc_id: str) -> tuple[Document, bytes]:
    """The project's document and its source's bytes, read as the corpus reads a file (no
    link followed unless the project follows links, no FIFO waited on, bounded), and only
    if they are the very bytes its text was bound from; else a CorpusError naming it."""
    follow = corpus.follow_symlinks
    doc = corpus.documents[doc_id]  # read again from its file if texts are not kept
    path = in_folder(root, doc_id, follow)
    raw = document_bytes(doc_id, path, follow=follow)
    if not bound_from(doc_id, raw, doc.text, doc.hash):
        raise CorpusError(CHANGED, file=shown(str(path)))
    return doc, raw

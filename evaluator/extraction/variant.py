"""The corpus as an alternative extractor reads it (§22): a corpus variant.

Only the sources the alternative reads are extracted again, from the very bytes the project
read; every other document keeps its text, so whatever differs is the extractor's doing. A
source the alternative cannot read is left out of the variant and named with why: its spans
are lost there, as they would be for a team that switched.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.extraction.config import Alternative
from labeler.core.corpus.extract.read import bound_hash
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


def variant(corpus: Corpus, alternative: Alternative) -> Variant:
    """The corpus as `alternative` reads it. Needs the folder the corpus was read from."""
    chosen = alternative.chosen
    documents: dict[str, Document] = {}
    extracted: list[str] = []
    failed: list[tuple[str, str]] = []
    changed: list[str] = []
    for doc in corpus:
        if not chosen.reads(doc.id) or corpus.root is None:
            documents[doc.id] = doc
            continue
        path = corpus.root / doc.id
        try:
            raw = path.read_bytes()
            found = chosen.extract(doc.id, raw, shown(doc.id))
        except OSError as exc:
            failed.append((doc.id, f"cannot read: {exc.strerror}"))
            continue
        except CorpusError as exc:  # SourceError: the extractor refused the file
            failed.append((doc.id, _why(exc)))
            continue
        except Exception as exc:  # a library's own failure on one file: named, skipped
            failed.append((doc.id, f"the extractor failed ({type(exc).__name__})"))
            continue
        extracted.append(doc.id)
        documents[doc.id] = Document(doc.id, found.text, bound_hash(found, raw), found.map)
        if found.text != doc.text:
            changed.append(doc.id)
    return Variant(
        alternative,
        Corpus(documents, corpus.root, normalization=corpus.normalization),
        tuple(extracted),
        tuple(failed),
        tuple(changed),
    )

"""`labels import` as one library call: read a label file, validate all of it, write once (§4).

A format that brings documents (SQuAD) has them checked first (`corpus_add.check_new`),
then written inside the store's write transaction, just before the queries go in, and
removed again when that transaction fails: an import leaves the corpus and the store as
they were, or both changed together.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from labeler.core import corpus_add, formats, labelset
from labeler.core.binding import CorpusStatus
from labeler.core.corpus import Corpus
from labeler.core.errors import StoreError
from labeler.core.store import Store


@dataclass(frozen=True)
class ImportResult:
    """What an import did, for the command to report."""

    imported: int
    """Queries written (new or replaced)."""
    total: int
    """Queries in the file."""
    warnings: tuple[str, ...] = ()
    """Things the user should know (duplicates skipped, say)."""
    added: tuple[str, ...] = ()
    """Ids of the documents written into the corpus folder."""


def import_file(
    store: Store,
    corpus: Corpus,
    status: CorpusStatus,
    path: Path,
    fmt: str,
    *,
    annotator: str,
    replace: bool = False,
    encoding: str = "utf-8",
) -> ImportResult:
    """Import `path` in format `fmt` into `store`, bound to `corpus` as `status` says."""
    if fmt == "spanlab":
        queries = labelset.read(path, corpus).queries
        n = labelset.import_queries(
            store, queries, corpus, annotator=annotator, replace_existing=replace
        )
        return ImportResult(n, len(queries))
    imported = formats.get(fmt).read(path, corpus, existing=store.queries())
    if not imported.documents:
        n = labelset.import_queries(
            store, imported.queries, corpus, annotator=annotator, replace_existing=replace
        )
        return ImportResult(n, len(imported.queries), imported.warnings)
    n, added = _with_documents(store, corpus, status, imported, annotator, replace, encoding)
    return ImportResult(n, len(imported.queries), imported.warnings, added)


def _with_documents(
    store: Store,
    corpus: Corpus,
    status: CorpusStatus,
    imported: formats.Imported,
    annotator: str,
    replace: bool,
    encoding: str,
) -> tuple[int, tuple[str, ...]]:
    labelset.refuse_while_waiting(status)
    if corpus.root is None:
        raise StoreError("this import brings documents, and the corpus has no folder to hold them")
    root = corpus.root
    merged = corpus_add.check_new(root, corpus, imported.documents, encoding)
    written: list[corpus_add.Added] = []

    def publish(db: sqlite_utils.Database) -> None:
        if store.corpus_hash != corpus.hash:
            raise StoreError("another writer rebound the store meanwhile; nothing was imported")
        written.append(corpus_add.write_new(root, corpus, imported.documents, encoding))
        store.bind(merged.doc_hashes, db=db)

    try:
        n = labelset.import_queries(
            store, imported.queries, merged, annotator=annotator, replace_existing=replace,
            on_disk=corpus, before_write=publish,
        )  # fmt: skip
    except BaseException:
        for added in written:
            added.remove()
        raise
    new = tuple(sorted(set(imported.documents) - set(corpus.documents)))
    return n, new

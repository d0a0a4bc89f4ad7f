"""`labels import` as one library call: read a label file, validate all of it, write once (§4).

A format that brings documents (SQuAD) has them checked first (`corpus_add.check_new`),
then written inside the store's write transaction, just before the queries go in, and
removed again when that transaction fails: an import leaves the corpus and the store as
they were, or both changed together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace as replace_fields
from pathlib import Path
from typing import TYPE_CHECKING

from labeler.core import formats
from labeler.core.anchoring.binding import CorpusStatus
from labeler.core.corpus import add as corpus_add
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, SpanlabError, StoreError
from labeler.core.formats import label_studio, label_studio_min
from labeler.core.labels import joins, labelset
from labeler.core.names import check_name
from labeler.core.overlaps import import_warnings
from labeler.core.progress import TaskFactory, no_task, stepped
from labeler.core.store import Store
from labeler.core.values import Query, valid_slice

if TYPE_CHECKING:
    import sqlite_utils


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
    labels_seen: frozenset[str] = frozenset()
    """Span labels the file uses (Label Studio), so the user can choose with `--label`."""
    annotators: tuple[str, ...] = ()
    """Annotators whose versions of a query were kept, to be adjudicated (§3)."""
    versions: int = 0
    """How many annotator versions were kept."""
    summary: str = ""
    """The reader's one line on what it read, when it has one."""
    removed: tuple[str, ...] = ()
    """One line per query replaced: which spans it removed, whose (§15)."""
    joined: joins.Joined | None = None
    """With `as_version`: queries new, joined and skipped."""


LABEL_STUDIO = ("label-studio", "label-studio-min", "label-studio-csv")
"""The formats whose span labels `--label` chooses among."""


@dataclass(frozen=True)
class ImportOptions:
    """How `labels import` reads a file and whose labels it writes (the command's flags)."""

    fmt: str
    """The file's format (`spanlab`, `squad`, `label-studio`, …)."""
    annotator: str
    """Who imports: the author of new queries and of the audit log's events."""
    replace: bool = False
    """Overwrite queries with the same id (each replaced query is logged, §15)."""
    encoding: str = "utf-8"
    """Codec of documents the file brings (SQuAD contexts)."""
    labels: frozenset[str] | None = None
    """Label Studio: the span labels that count as evidence (None: every label)."""
    slices: tuple[str, ...] = ()
    """Slices every imported query is tagged with, beside its own."""
    skip_bad: bool = False
    """Skip (and count) records that cannot be read instead of refusing the file."""
    as_version: bool = False
    """The file's annotations become versions of the queries they share with the store."""
    version_of: str | None = None
    """With `as_version`: whose versions (else the annotator the file names)."""
    task: TaskFactory = no_task
    """Shows how far reading, checking and writing are (the command's bars)."""

    def check(self) -> None:
        """Refuse flags that do not apply to the format, naming the flag."""
        if self.labels and self.fmt not in LABEL_STUDIO:
            formats_ = ", ".join(LABEL_STUDIO)
            raise SpanlabError(
                f"--label applies to Label Studio files only ({formats_})", key="--label"
            )
        for name in self.slices:
            if not valid_slice(name):
                raise LabelError(f"invalid slice {name!r}: 1–64 characters, no space, comma or "
                                 "control", key="--slice")  # fmt: skip
        if self.skip_bad and self.fmt == "spanlab":
            raise SpanlabError("--skip-bad does not apply to a spanlab label set", key="--skip-bad")
        if self.as_version and self.fmt == "spanlab":  # read as a plain import, --replace wrote
            raise SpanlabError(
                "--as-version does not apply to a spanlab label set: it holds whole queries",
                key="--as-version",
                hint="export the other annotator's labels in a tool format (prodigy, doccano, "
                "label-studio) and import that with --as-version",
            )


def import_file(
    store: Store, corpus: Corpus, status: CorpusStatus, path: Path, opts: ImportOptions
) -> ImportResult:
    """Import `path` into `store`, bound to `corpus` as `status` says: every flag checked,
    the whole file read and validated, then written in one transaction."""
    opts.check()
    if not opts.as_version:  # refused before a long read, not after it (issue 45)
        labelset.refuse_while_waiting(status)
    if opts.fmt == "spanlab":
        return _import_labelset(store, corpus, path, opts)
    existing: tuple[Query, ...] = ()
    if not opts.as_version:  # a line while a large store is read (issue 45)
        with stepped(opts.task, "reading the store", store.count("queries")) as advance:
            existing = tuple(store.queries(advance))  # 200,000: 10 s, counted by query
    imported = _read(path, corpus, existing, opts)
    _labels_seen(path, opts.labels, imported.labels_seen)
    imported = replace_fields(imported, queries=tagged(imported.queries, opts.slices))
    if opts.as_version:
        return _joined(store, corpus, imported, _whose(path, opts), opts.annotator, opts.replace)
    return _write(store, corpus, status, imported, opts)


def _import_labelset(store: Store, corpus: Corpus, path: Path, opts: ImportOptions) -> ImportResult:
    removed: list[str] = []
    queries = tagged(labelset.read(path, corpus, opts.task).queries, opts.slices)
    n = labelset.import_queries(store, queries, corpus, annotator=opts.annotator,
                                replace_existing=opts.replace, removed=removed,
                                task=opts.task)  # fmt: skip
    return ImportResult(n, len(queries), tuple(import_warnings(queries)), removed=tuple(removed))


def _whose(path: Path, opts: ImportOptions) -> str | None:
    """Whose versions an `--as-version` file holds; a name (§13), as every annotator is.
    doccano writes each member's annotations to `{username}.jsonl` (doccano 1.8.4,
    backend/data_export/celery_tasks.py)."""
    whose = opts.version_of or (path.stem if opts.fmt == "doccano" else None)
    if whose is not None:
        key, file = ("--version-of", None) if opts.version_of else (None, str(path))
        check_name(whose, "annotator name", key=key, file=file, error=LabelError)
    return whose


def _write(
    store: Store,
    corpus: Corpus,
    status: CorpusStatus,
    imported: formats.Imported,
    opts: ImportOptions,
) -> ImportResult:
    removed: list[str] = []
    added: tuple[str, ...] = ()
    if imported.documents:
        n, added = _with_documents(store, corpus, status, imported, opts)
    else:
        n = labelset.import_queries(
            store, imported.queries, corpus, annotator=opts.annotator,
            replace_existing=opts.replace, fresh=imported.fresh, versions=imported.versions,
            removed=removed, task=opts.task,
        )  # fmt: skip
    warnings = (*imported.warnings, *import_warnings(imported.queries))
    who = tuple(sorted({v.annotator for _, v in imported.versions}))
    return ImportResult(n, len(imported.queries), warnings, added, imported.labels_seen, who,
                        len(imported.versions), imported.summary, tuple(removed))  # fmt: skip


def tagged(queries: tuple[Query, ...], slices: tuple[str, ...]) -> tuple[Query, ...]:
    """`queries`, each with `slices` added to its own."""
    if not slices:
        return queries
    return tuple(replace_fields(q, slices=(*q.slices, *slices)) for q in queries)


def _labels_seen(path: Path, labels: frozenset[str] | None, seen: frozenset[str]) -> None:
    """Refuse `--label`s no span of the file carries: a typo there would import every
    query without its evidence (a file with other labels too is told what it counts)."""
    if labels and not labels & seen:
        names = ", ".join(repr(n) for n in sorted(labels))
        found = ", ".join(repr(n) for n in sorted(seen)) or "none"
        raise LabelError(f"no span in the file has the label {names} (labels seen: {found})",
                         file=str(path), key="--label")  # fmt: skip


def _read(
    path: Path, corpus: Corpus, existing: Sequence[Query], opts: ImportOptions
) -> formats.Imported:
    """The file read; the reader tells `opts.task` the bytes parsed and records checked."""
    fmt, labels, progress = opts.fmt, opts.labels, opts.task
    if opts.skip_bad:
        return formats.read_skipping(fmt, path, corpus, existing=existing, labels=labels,
                                     progress=progress)  # fmt: skip
    if labels and fmt == "label-studio":
        return label_studio.read(path, corpus, existing=existing, labels=labels, progress=progress)
    if labels:
        return label_studio_min.read(path, corpus, existing=existing, labels=labels,
                                     progress=progress)  # fmt: skip
    return formats.get(fmt).read(path, corpus, existing=existing, progress=progress)


def _joined(
    store: Store,
    corpus: Corpus,
    imported: formats.Imported,
    name: str | None,
    importer: str,
    replace: bool,
) -> ImportResult:
    if imported.documents:
        raise SpanlabError("--as-version takes files that bring no documents", key="--as-version")
    done = joins.join(store, corpus, imported, name=name, importer=importer, replacing=replace)
    warnings = (*imported.warnings, *done.warnings)
    return ImportResult(done.new + done.joined, len(imported.queries), warnings, (),
                        imported.labels_seen, done.annotators, done.versions, imported.summary,
                        joined=done)  # fmt: skip


def _with_documents(
    store: Store,
    corpus: Corpus,
    status: CorpusStatus,
    imported: formats.Imported,
    opts: ImportOptions,
) -> tuple[int, tuple[str, ...]]:
    annotator, replace, encoding = opts.annotator, opts.replace, opts.encoding
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
            on_disk=corpus, before_write=publish, fresh=imported.fresh, versions=imported.versions,
        )  # fmt: skip
    except BaseException:
        for added in written:
            added.remove()
        raise
    new = tuple(sorted(set(imported.documents) - set(corpus.documents)))
    return n, new

"""Sanity checks that run before any metric is reported (§7) and stop a run when they fail.

A metric computed over chunks that miss part of a document, or over labels made on
another corpus, is worse than no metric: these checks make such runs impossible.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.progress import TaskFactory, each, no_task
from labeler.core.values import Query


class SanityError(SpanlabError):
    """A run cannot produce trustworthy numbers."""


def check_labels(
    queries: Sequence[Query], corpus: Corpus, label_corpus_hash: str, task: TaskFactory = no_task
) -> None:
    """Every span in range of its document, on the text it was drawn on (counted by query
    on `task`: 100,000 queries take about 10 s)."""
    if label_corpus_hash != corpus.hash:
        raise SanityError(
            f"the labels are bound to corpus {label_corpus_hash}, the corpus is {corpus.hash}",
            hint="run `spanlab corpus status` and `spanlab review`",
        )
    for q in each(task, "checking the labels", queries):
        for s in q.evidence:
            if s.doc not in corpus:
                raise SanityError(f"query {q.id}: document {s.doc!r} is not in the corpus")
            s.check(corpus.text(s.doc))


def check_chunks(name: str, chunks: Sequence[Chunk], corpus: Corpus) -> None:
    """In range, unique ids, and every character of every document covered; a gap of
    whitespace only is allowed (trimming library splitters leave them, §14). A table is
    checked by its columns, one document's text in hand at a time."""
    spans = _spans_by_doc(chunks)
    repeat = chunks.first_repeat() if isinstance(chunks, ChunkTable) else _first_repeat(chunks)
    if repeat is not None:
        raise SanityError(f"candidate {name!r}: chunk id {chunks[repeat].id} occurs twice")
    if unknown := sorted(set(spans) - set(corpus.documents)):
        raise SanityError(f"candidate {name!r}: chunk in unknown document {unknown[0]!r}")
    for doc in corpus:
        covered = 0
        for start, end in sorted(spans.get(doc.id, ())):
            if not 0 <= start < end <= len(doc.text):
                raise SanityError(
                    f"candidate {name!r}: chunk {start}..{end} out of range in {doc.id}",
                    offset=start,
                )
            if start > covered and not doc.text[covered:start].isspace():
                break
            covered = max(covered, end)
        if covered < len(doc.text) and not doc.text[covered:].isspace():
            raise SanityError(
                f"candidate {name!r}: characters of {doc.id} from offset {covered} are in no chunk",
                offset=covered,
            )


def _spans_by_doc(chunks: Sequence[Chunk]) -> Mapping[str, Sequence[tuple[int, int]]]:
    """Document id -> its chunks' (start, end); a table's are views of its columns."""
    if isinstance(chunks, ChunkTable):
        return _TableSpans(chunks)
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc, []).append((c.start, c.end))
    return by_doc


class _TableSpans(Mapping[str, Sequence[tuple[int, int]]]):
    def __init__(self, table: ChunkTable) -> None:
        self.table = table

    def __getitem__(self, doc: str) -> Sequence[tuple[int, int]]:
        r = self.table.doc_range(doc)
        if not r:
            raise KeyError(doc)
        starts, ends = self.table.starts[r.start : r.stop], self.table.ends[r.start : r.stop]
        return list(zip(starts.tolist(), ends.tolist(), strict=True))

    def __iter__(self) -> Iterator[str]:
        return iter(self.table.docs)

    def __len__(self) -> int:
        return len(self.table.docs)


def _first_repeat(chunks: Sequence[Chunk]) -> int | None:
    seen: set[str] = set()
    for i, c in enumerate(chunks):
        if c.id in seen:
            return i
        seen.add(c.id)
    return None


def check_same_documents(chunks_by_candidate: Mapping[str, Sequence[Chunk] | set[str]]) -> None:
    """Every candidate cut the same documents (each given by its chunks or their ids)."""
    docs = {name: chunks if isinstance(chunks, set) else documents_of(chunks)
            for name, chunks in chunks_by_candidate.items()}  # fmt: skip
    names = list(docs)
    for name in names[1:]:
        if docs[name] != docs[names[0]]:
            diff = sorted(docs[name] ^ docs[names[0]])
            raise SanityError(
                f"candidates {names[0]!r} and {name!r} saw different documents: {diff[:5]}"
            )


def documents_of(chunks: Sequence[Chunk]) -> set[str]:
    """The documents that have chunks."""
    return set(chunks.docs) if isinstance(chunks, ChunkTable) else {c.doc for c in chunks}


def check_gated_slices(gated: Mapping[str, object], queries: Sequence[Query]) -> None:
    """A gate on a slice no query has would always pass: most likely a misspelt name."""
    present = {s for q in queries for s in q.slices}
    missing = sorted(set(gated) - present)
    if missing:
        raise SanityError(
            f"[gates.slice.{missing[0]}]: no labelled query has the slice {missing[0]!r}",
            key=f"gates.slice.{missing[0]}",
            hint="slices in the labels: " + (", ".join(sorted(present)) or "none"),
        )

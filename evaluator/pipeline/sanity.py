"""Sanity checks that run before any metric is reported (§7) and stop a run when they fail.

A metric computed over chunks that miss part of a document, or over labels made on
another corpus, is worse than no metric: these checks make such runs impossible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluator.chunk import Chunk
from labeler.core.corpus import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.values import Query


class SanityError(SpanlabError):
    """A run cannot produce trustworthy numbers."""


def check_labels(queries: Sequence[Query], corpus: Corpus, label_corpus_hash: str) -> None:
    if label_corpus_hash != corpus.hash:
        raise SanityError(
            f"the labels are bound to corpus {label_corpus_hash}, the corpus is {corpus.hash}",
            hint="run `spanlab corpus status` and `spanlab review`",
        )
    for q in queries:
        for s in q.evidence:
            if s.doc not in corpus:
                raise SanityError(f"query {q.id}: document {s.doc!r} is not in the corpus")
            s.check(corpus.text(s.doc))


def check_chunks(name: str, chunks: Sequence[Chunk], corpus: Corpus) -> None:
    """In range, unique ids, and every character of every document covered; a gap of
    whitespace only is allowed (trimming library splitters leave them, §14)."""
    seen: set[str] = set()
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        if c.id in seen:
            raise SanityError(f"candidate {name!r}: chunk id {c.id} occurs twice")
        seen.add(c.id)
        if c.doc not in corpus:
            raise SanityError(f"candidate {name!r}: chunk in unknown document {c.doc!r}")
        if not 0 <= c.start < c.end <= len(corpus.text(c.doc)):
            raise SanityError(
                f"candidate {name!r}: chunk {c.start}..{c.end} out of range in {c.doc}",
                offset=c.start,
            )
        by_doc.setdefault(c.doc, []).append(c)
    for doc in corpus:
        covered = 0
        for c in sorted(by_doc.get(doc.id, []), key=lambda c: c.start):
            if c.start > covered and not doc.text[covered : c.start].isspace():
                break
            covered = max(covered, c.end)
        if covered < len(doc.text) and not doc.text[covered:].isspace():
            raise SanityError(
                f"candidate {name!r}: characters of {doc.id} from offset {covered} are in no chunk",
                offset=covered,
            )


def check_same_documents(chunks_by_candidate: Mapping[str, Sequence[Chunk]]) -> None:
    docs = {name: {c.doc for c in chunks} for name, chunks in chunks_by_candidate.items()}
    names = list(docs)
    for name in names[1:]:
        if docs[name] != docs[names[0]]:
            diff = sorted(docs[name] ^ docs[names[0]])
            raise SanityError(
                f"candidates {names[0]!r} and {name!r} saw different documents: {diff[:5]}"
            )


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

"""Compare the corpus folder as it is now with the store's binding (§3, §8).

Every command calls `sync`: there is no re-ingest step. When nothing a span depends on
has changed, the store quietly rebinds to the new corpus hash; otherwise it stays bound
to the old hash until a person has resolved every stale span.
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass, replace

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span, SpanState


@dataclass(frozen=True)
class CorpusChange:
    changed: tuple[str, ...]
    """Documents in both, with different hashes."""
    added: tuple[str, ...]
    """Documents only in the corpus folder."""
    removed: tuple[str, ...]
    """Documents only in the binding."""

    @property
    def any(self) -> bool:
        return bool(self.changed or self.added or self.removed)


@dataclass(frozen=True)
class SpanCheck:
    query_id: str
    """The query the span answers."""
    span: Span
    """The span as stored."""
    state: SpanState
    """valid, stale or orphaned against the current corpus."""


@dataclass(frozen=True)
class CorpusStatus:
    bound_hash: str | None
    """The hash the store is bound to."""
    current_hash: str
    """The hash of the corpus folder now."""
    change: CorpusChange
    """What differs between the two."""
    spans: tuple[SpanCheck, ...]
    """Every span that is not valid."""
    span_total: int
    """How many spans the store holds."""

    @property
    def counts(self) -> Counter[SpanState]:
        c: Counter[SpanState] = Counter(s.state for s in self.spans)
        c[SpanState.VALID] = self.span_total - len(self.spans)
        return c

    @property
    def waiting(self) -> int:
        """Spans that wait for a person's review."""
        return len(self.spans)


def diff_documents(bound: dict[str, str], current: dict[str, str]) -> CorpusChange:
    return CorpusChange(
        changed=tuple(sorted(d for d in bound.keys() & current.keys() if bound[d] != current[d])),
        added=tuple(sorted(current.keys() - bound.keys())),
        removed=tuple(sorted(bound.keys() - current.keys())),
    )


def check(store: Store, corpus: Corpus) -> CorpusStatus:
    """Read-only: what changed and which spans are no longer valid.

    Only spans in changed or removed documents are read: a span in an unchanged document
    was checked against that very text when it was written. Asked again with nothing
    written since (the app, its mode switch and the review screen each ask on opening),
    the answer already given is returned.
    """
    now = stamp(store, corpus.hash)
    kept = _TALLIES.get(store)
    if kept is not None and kept.status is not None and kept.stamp == now:
        return kept.status
    bound = store.bound_documents()
    current = corpus.doc_hashes
    change = diff_documents(bound, current)
    bad: list[SpanCheck] = []
    seen: set[int | None] = set()
    # Spans off the binding too: drawn on another text, or brought back by an undo.
    touched = store.spans(change.changed + change.removed, every=True)
    for query_id, span in touched + store.spans_off_binding():
        if span.id in seen:
            continue
        seen.add(span.id)
        text = corpus.documents[span.doc].text if span.doc in current else None
        state = span.state_in(text)
        if state is not SpanState.VALID:
            bad.append(SpanCheck(query_id, span, state))
    total = store.count("spans")
    status = CorpusStatus(store.corpus_hash, now[2], change, tuple(bad), total)
    by_doc = Counter(c.span.doc for c in bad)
    _TALLIES[store] = _Tally(now, dict(by_doc), len(bad), status)
    return status


# -- the waiting count, kept between one connection's own decisions ----------------------


Stamp = tuple[int, int, str]
"""What the store and corpus were when a check or tally was taken: SQLite's data_version (others'
commits), this connection's total_changes (its own writes) and the corpus hash."""


@dataclass
class _Tally:
    stamp: Stamp
    """When it was taken; any other write since makes it unusable."""
    by_doc: dict[str, int]
    """Waiting spans per document."""
    waiting: int
    """Their sum."""
    status: CorpusStatus | None
    """The whole answer of the `check` that took it (None once a decision moved on)."""


_TALLIES: weakref.WeakKeyDictionary[Store, _Tally] = weakref.WeakKeyDictionary()


def stamp(store: Store, corpus_hash: str) -> Stamp:
    return (store.data_version(), store.conn.total_changes, corpus_hash)


def waiting_after(store: Store, corpus: Corpus, doc: str, before: Stamp) -> int:
    """Spans waiting after this connection's one write touching `doc`, taken at `before`.

    One decision re-reads its own document's spans only, so a decision costs the same
    with 10 or 10,000 stale spans; when anything else wrote since the last full `check`
    (another annotator, another screen), it falls back to that check.
    """
    tally = _TALLIES.get(store)
    if tally is None or tally.stamp != before or store.data_version() != before[0]:
        return check(store, corpus).waiting
    bound = store.bound_document(doc)
    text = corpus.documents[doc].text if doc in corpus.documents else None
    changed = text is None or bound != corpus.documents[doc].hash
    now = sum(
        1
        for _, span in store.spans([doc], every=True)
        if (changed or span.doc_hash != bound) and span.state_in(text) is not SpanState.VALID
    )
    tally.waiting += now - tally.by_doc.get(doc, 0)
    tally.by_doc[doc] = now
    tally.stamp, tally.status = stamp(store, before[2]), None
    return tally.waiting


def sync(store: Store, corpus: Corpus) -> CorpusStatus:
    """Rebind to the corpus when no span waits for review; return the status either way."""
    status = check(store, corpus)
    if status.bound_hash == status.current_hash or status.waiting:
        return status
    with store.write() as db:
        # Check again under the write lock: another writer may have added a span since.
        status = check(store, corpus)
        if status.waiting:
            return status
        for doc_id in status.change.changed:
            doc = corpus.documents[doc_id]
            store.rehash_spans(doc_id, doc.hash, doc.text, db=db)
        store.bind(corpus.doc_hashes, db=db)
    return replace(status, bound_hash=corpus.hash)


def open_or_bind(store: Store, corpus: Corpus) -> CorpusStatus:
    """Bind a new store to `corpus`; for one already bound, compare and rebind if allowed."""
    if store.corpus_hash is None:
        store.bind(corpus.doc_hashes)
        return check(store, corpus)
    return sync(store, corpus)

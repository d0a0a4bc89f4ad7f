"""Comparing the corpus folder with the store's binding (design §3, §8)."""

from __future__ import annotations

from labeler.core.anchoring.binding import check, diff_documents, sync
from labeler.core.corpus.canonical import doc_hash
from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span, SpanState

POLICY = (
    "# Refunds\n"
    "Refunds are paid within 30 days of purchase.\n"
    "\n"
    "# Shipping\n"
    "Orders ship from the central warehouse every weekday.\n"
)
FAQ = "Gift cards never expire.\n"
TEXTS = {"policy.md": POLICY, "faq.txt": FAQ}


def bound_store(store: Store, corpus: Corpus) -> Span:
    """Bind `store` to `corpus` and label '30 days' in policy.md; returns the span."""
    store.bind(corpus.doc_hashes)
    q = store.add_query("How long do refunds take?", annotator="ann")
    start = POLICY.index("30 days")
    span = Span.from_text(POLICY, "policy.md", start, start + 7)
    return store.add_span(q.id, span, POLICY, annotator="ann")


def test_unchanged_corpus_keeps_every_span_valid(memory_store: Store) -> None:
    corpus = Corpus.from_texts(TEXTS)
    bound_store(memory_store, corpus)
    status = check(memory_store, corpus)
    assert status.bound_hash == status.current_hash == corpus.hash
    assert not status.change.any
    assert (status.spans, status.span_total, status.waiting) == ((), 1, 0)
    assert status.counts == {SpanState.VALID: 1}


def test_change_elsewhere_keeps_the_span_valid_and_rebinds(memory_store: Store) -> None:
    old = Corpus.from_texts(TEXTS)
    span = bound_store(memory_store, old)
    edited = POLICY.replace("every weekday", "twice a week")
    new = Corpus.from_texts({**TEXTS, "policy.md": edited})
    status = check(memory_store, new)
    assert status.change.changed == ("policy.md",)
    assert status.waiting == 0
    assert memory_store.corpus_hash == old.hash
    synced = sync(memory_store, new)
    assert synced.bound_hash == new.hash
    assert memory_store.corpus_hash == new.hash
    assert memory_store.bound_documents() == new.doc_hashes
    (_, rebound), *_ = memory_store.spans()
    assert (rebound.start, rebound.end, rebound.quote) == (span.start, span.end, "30 days")
    assert rebound.doc_hash == doc_hash(edited)
    assert memory_store.doc_text(doc_hash(edited)) == edited
    # The old text stays too: it is content-addressed and never deleted on rebinding.
    assert memory_store.doc_text(doc_hash(POLICY)) == POLICY
    assert not check(memory_store, new).change.any


def test_changed_span_text_is_stale_and_the_binding_stays(memory_store: Store) -> None:
    old = Corpus.from_texts(TEXTS)
    bound_store(memory_store, old)
    new = Corpus.from_texts({**TEXTS, "policy.md": POLICY.replace("30 days", "14 days")})
    status = sync(memory_store, new)
    assert status.change.changed == ("policy.md",)
    assert [(c.query_id, c.span.quote, c.state) for c in status.spans] == [
        ("q-0001", "30 days", SpanState.STALE)
    ]
    assert status.waiting == 1
    assert status.counts == {SpanState.STALE: 1, SpanState.VALID: 0}
    assert status.bound_hash == old.hash
    assert memory_store.corpus_hash == old.hash
    assert memory_store.bound_documents() == old.doc_hashes
    assert memory_store.doc_text(doc_hash(POLICY)) == POLICY


def test_a_shifted_quote_is_stale_even_though_its_text_survives(memory_store: Store) -> None:
    bound_store(memory_store, Corpus.from_texts(TEXTS))
    new = Corpus.from_texts({**TEXTS, "policy.md": "Updated.\n" + POLICY})
    status = sync(memory_store, new)
    assert [c.state for c in status.spans] == [SpanState.STALE]


def test_removed_document_orphans_its_spans(memory_store: Store) -> None:
    old = Corpus.from_texts(TEXTS)
    bound_store(memory_store, old)
    new = Corpus.from_texts({"faq.txt": FAQ})
    status = sync(memory_store, new)
    assert status.change.removed == ("policy.md",)
    assert [c.state for c in status.spans] == [SpanState.ORPHANED]
    assert status.counts[SpanState.ORPHANED] == 1
    assert memory_store.corpus_hash == old.hash


def test_added_documents_are_listed_and_rebind(memory_store: Store) -> None:
    old = Corpus.from_texts(TEXTS)
    bound_store(memory_store, old)
    new = Corpus.from_texts({**TEXTS, "new/guide.md": "New.\n", "a.txt": "A\n"})
    status = sync(memory_store, new)
    assert status.change.added == ("a.txt", "new/guide.md")
    assert (status.change.changed, status.change.removed) == ((), ())
    assert memory_store.corpus_hash == new.hash


def test_first_sync_of_an_unbound_store_binds_it(memory_store: Store) -> None:
    corpus = Corpus.from_texts(TEXTS)
    status = sync(memory_store, corpus)
    assert status.bound_hash == corpus.hash
    assert memory_store.bound_documents() == corpus.doc_hashes


def test_diff_documents() -> None:
    change = diff_documents(
        {"same": "h1", "edited": "h2", "gone": "h3"},
        {"same": "h1", "edited": "h4", "new": "h5"},
    )
    assert (change.changed, change.added, change.removed) == (("edited",), ("new",), ("gone",))
    assert change.any
    assert not diff_documents({"a": "h"}, {"a": "h"}).any

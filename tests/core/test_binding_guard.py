"""No span gets past the binding: drawn on another text, or back from an undo."""

from __future__ import annotations

import pytest

from labeler.core.anchoring import binding
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import StoreError
from labeler.core.labels.labelset import export
from labeler.core.store import Store
from labeler.core.values import Span, SpanState

OLD = {"a.txt": "Refunds take 14 days.", "b.txt": "the refund window is 30 days."}
NEW = {"a.txt": "Refunds take 14 days.", "b.txt": "PREAMBLE. the refund window is 30 days."}


def test_a_span_drawn_on_a_text_the_store_is_not_bound_to_is_refused() -> None:
    old, new = Corpus.from_texts(OLD), Corpus.from_texts(NEW)
    store = Store.memory()
    store.bind(old.doc_hashes)
    q = store.add_query("refund window?", annotator="ann")
    binding.sync(store, new)  # nothing waits, so another process rebinds to the new corpus
    stale_text = old.text("b.txt")
    with pytest.raises(StoreError, match="has changed since the store was bound"):
        store.add_span(q.id, Span.from_text(stale_text, "b.txt", 4, 17), stale_text,
                       annotator="ann")  # fmt: skip
    assert store.count("spans") == 0
    text = new.text("b.txt")
    store.add_span(q.id, Span.from_text(text, "b.txt", 14, 27), text, annotator="ann")
    assert binding.check(store, new).waiting == 0


def test_a_span_off_the_binding_is_checked_even_in_an_unchanged_document() -> None:
    old, new = Corpus.from_texts(OLD), Corpus.from_texts(NEW)
    store = Store.memory()
    store.bind(old.doc_hashes)
    q = store.add_query("refund window?", annotator="ann")
    text = old.text("b.txt")
    store.add_span(q.id, Span.from_text(text, "b.txt", 4, 17), text, annotator="ann")
    with store.write() as db:  # as if written behind the binding's back
        store.bind(new.doc_hashes, db=db)
    status = binding.check(store, new)
    assert status.change.changed == ()
    assert [c.state for c in status.spans] == [SpanState.STALE]
    with pytest.raises(StoreError, match="wait for review"):
        export(store, new)

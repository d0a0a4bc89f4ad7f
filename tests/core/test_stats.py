"""Label statistics from whole queries and from the store's light rows agree."""

from __future__ import annotations

from labeler.core.corpus import Corpus
from labeler.core.stats import label_stats
from labeler.core.store import Store
from labeler.core.values import Boundary, Span, Status


def test_stats_from_rows_equal_stats_from_queries() -> None:
    corpus = Corpus.from_texts({"a.md": "Refunds take 14 days.", "b.md": "Ship in 3 days."})
    store = Store.memory()
    store.bind(corpus.doc_hashes)
    q = store.add_query("refund?", annotator="ann", boundary=Boundary.CONTROL,
                        slices=("critical",))  # fmt: skip
    for doc, start, end in (("a.md", 0, 7), ("b.md", 0, 4), ("a.md", 8, 12)):
        text = corpus.text(doc)
        store.add_span(q.id, Span.from_text(text, doc, start, end), text, annotator="ann")
    store.update_query(q.id, annotator="rita", status=Status.REVIEWED)  # reviewed by another
    store.add_query("none?", annotator="bob", abstain=True)
    from_queries = label_stats(store.queries())
    from_rows = label_stats(store.query_rows(), store.doc_span_counts())
    assert from_rows == from_queries
    assert from_rows.spans == 3 and from_rows.multi_span == 1 and from_rows.abstain == 1
    assert from_rows.by_document == {"a.md": 2, "b.md": 1}
    assert from_rows.by_annotator == {"ann": 1, "bob": 1}


def test_work_credits_whoever_created_added_or_reviewed() -> None:
    """The trial: stats credited only a query's creator, not who labelled or reviewed it."""
    corpus = Corpus.from_texts({"a.md": "Refunds take 14 days. Cards are credited."})
    text = corpus.text("a.md")
    store = Store.memory()
    store.bind(corpus.doc_hashes)
    q = store.add_query("refund?", annotator="alice")
    store.add_query("cards?", annotator="alice")
    for start, end in ((0, 7), (22, 27)):
        store.add_span(q.id, Span.from_text(text, "a.md", start, end), text, annotator="bob")
    store.update_query(q.id, annotator="carol", status=Status.REVIEWED)
    store.update_query(q.id, annotator="carol", notes="checked twice")
    stats = label_stats(store.query_rows(), store.doc_span_counts(), store.work_by_annotator())
    assert stats.by_annotator == {"alice": 2}
    assert stats.work == {
        "alice": {"queries": 2, "spans": 0, "reviewed": 0},
        "bob": {"queries": 0, "spans": 2, "reviewed": 0},
        "carol": {"queries": 0, "spans": 0, "reviewed": 1},
    }

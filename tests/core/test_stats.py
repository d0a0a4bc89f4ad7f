"""Label statistics from whole queries and from the store's light rows agree."""

from __future__ import annotations

from labeler.core.anchoring import binding, review
from labeler.core.corpus.folder import Corpus
from labeler.core.labels.stats import label_stats
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
    zero = {"adjudicated": 0, "resolved": 0}
    assert stats.work == {
        "alice": {"queries": 2, "spans": 0, "reviewed": 0, **zero},
        "bob": {"queries": 0, "spans": 2, "reviewed": 0, **zero},
        "carol": {"queries": 0, "spans": 0, "reviewed": 1, **zero},
    }


OLD = "Refunds are paid within 14 days. Cards are credited in two days."


def test_work_credits_adjudication_and_stale_spans_resolved() -> None:
    """issue 19: stats credited no adjudication or review work. rita decides two queries
    (a keep, a send-back); lee resolves two stale spans, and one undone by sam does not
    count; the undo itself is not a resolution."""
    corpus = Corpus.from_texts({"a.md": OLD})
    store = Store.memory()
    store.bind(corpus.doc_hashes)
    for qid in ("q-0001", "q-0002"):
        store.add_query("refund?", annotator="lead", query_id=qid)
        for who, end in (("alice", 32), ("bob", 20)):
            store.view = who
            store.add_span(qid, Span.from_text(OLD, "a.md", 0, end), OLD, annotator=who)
    store.view = ""
    store.adjudicate("q-0001", "keep", keep=["alice"], annotator="rita",
                     seen=store.query("q-0001").revision)  # fmt: skip
    store.adjudicate("q-0002", "send-back", note="again", annotator="rita",
                     seen=store.query("q-0002").revision)  # fmt: skip
    store.add_query("cards?", annotator="lead", query_id="q-0003")
    for start, end in ((33, 38), (39, 42), (43, 51)):
        store.add_span("q-0003", Span.from_text(OLD, "a.md", start, end), OLD, annotator="ann")
    new = Corpus.from_texts({"a.md": "Notice. " + OLD})
    binding.sync(store, new)
    ids = [s.id for q, s in store.spans() if q == "q-0003"]
    assert None not in ids and len(ids) == 3
    review.accept(store, new, ids[0] or 0, 41, 46, annotator="lee")
    review.orphan(store, new, ids[1] or 0, annotator="lee")
    undone = review.accept(store, new, ids[2] or 0, 51, 59, annotator="lee")
    review.undo(store, new, undone.decision.id, annotator="sam")
    work = store.work_by_annotator()
    assert {who: (w["adjudicated"], w["resolved"]) for who, w in work.items()} == {
        "rita": (2, 0),
        "lee": (0, 2),
        "lead": (0, 0),
        "alice": (0, 0),
        "ann": (0, 0),
    }  # sam's undo is no work credited; bob's blind spans are not in this view
    stats = label_stats(store.query_rows(), store.doc_span_counts(), work)
    assert stats.work["rita"]["adjudicated"] == 2 and stats.work["lee"]["resolved"] == 2

"""The bulk export path and the value path produce the same frozen label set."""

from __future__ import annotations

from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import export, to_json
from labeler.core.store import Store
from labeler.core.values import Boundary, Span, Status


def test_bulk_export_equals_export_built_from_values() -> None:
    corpus = Corpus.from_texts(
        {"b.md": "Refunds take 14 days.\n", "a.md": "Caf\u00e9 \U0001f600 ok"}
    )
    store = Store.memory()
    store.bind(corpus.doc_hashes)
    q1 = store.add_query("refund time?", annotator="ann", boundary=Boundary.CONTROL,
                         slices=("z", "critical"), notes="n")  # fmt: skip
    store.add_span(q1.id, Span.from_text(corpus.text("b.md"), "b.md", 0, 7), corpus.text("b.md"),
                   annotator="ann")  # fmt: skip
    store.add_span(q1.id, Span.from_text(corpus.text("a.md"), "a.md", 5, 6), corpus.text("a.md"),
                   annotator="ann")  # fmt: skip
    store.update_query(q1.id, annotator="rita", status=Status.REVIEWED)  # reviewed by another
    store.add_query("nothing here", annotator="ann", abstain=True)
    bulk = export(store, corpus)
    values = to_json(store.queries(), corpus, exported_at=bulk["exported_at"])
    assert bulk == values
    assert bulk["queries"][0]["evidence"][0] == {
        "doc": "a.md", "start": 5, "end": 6, "quote": "\U0001f600", "prefix": "Café ",
        "suffix": " ok",
    }  # fmt: skip

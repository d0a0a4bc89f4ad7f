"""Store at scale (§12): 100,000 queries with 200,000 spans — export (target ≤ 5 s) against
reading the same rows raw with sqlite3, and loading every query for the app's list.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import export
from labeler.core.store import Store
from labeler.core.values import Query, Span

QUERIES = 100_000


def build(path: Path) -> tuple[Store, Corpus]:
    sentence = "Refunds are issued within 14 days of the return arriving at our warehouse. "
    texts = {f"docs/d{i:03d}.md": f"# Document {i}\n\n" + sentence * 400 for i in range(200)}
    corpus = Corpus.from_texts(texts)
    store = Store.open(path)
    store.bind(corpus.doc_hashes)
    queries = []
    for n in range(QUERIES):
        doc = f"docs/d{n % 200:03d}.md"
        text = corpus.text(doc)
        a = 14 + (n * 75) % 29_000
        spans = (Span.from_text(text, doc, a, a + 60), Span.from_text(text, doc, a + 75, a + 140))
        when = "2026-01-01T00:00:00Z"
        queries.append(
            Query(f"q-{n + 1:06d}", f"question {n}", evidence=spans, created=when, updated=when)
        )
    with store.write() as db:
        store.put_queries(queries, {d.id: d.text for d in corpus}, db=db)
    return store, corpus


def test_export_of_100k_queries_and_200k_spans(tmp_path: Path) -> None:
    started = time.perf_counter()
    store, corpus = build(tmp_path / "labels.db")
    print(f"\nbuilt 100k queries / 200k spans in {time.perf_counter() - started:.1f} s")

    started = time.perf_counter()
    rows = store.conn.execute("SELECT * FROM spans").fetchall()
    qrows = store.conn.execute("SELECT * FROM queries").fetchall()
    raw = time.perf_counter() - started

    started = time.perf_counter()
    queries = store.queries()
    listing = time.perf_counter() - started

    started = time.perf_counter()
    data = export(store, corpus)
    payload = json.dumps(data, ensure_ascii=False)
    exported = time.perf_counter() - started

    assert len(rows) == 200_000 and len(qrows) == QUERIES == len(queries)
    assert len(data["queries"]) == QUERIES
    print(f"raw sqlite3 read of every row   {raw:6.2f} s")
    print(f"store.queries() (all, as values) {listing:6.2f} s   {listing / raw:.1f}x raw")
    print(f"export to JSON ({len(payload) / 1e6:.0f} MB)        {exported:6.2f} s   "
          f"{exported / raw:.1f}x raw (target <= 5 s)")  # fmt: skip

"""§12 review screen: it opens in ≤ 1 s with 10,000 stale spans across 1,000 changed documents.

Candidates are computed lazily (only the highlighted span's, in a worker), so opening costs
the waiting list alone. Side by side: the same screen opened on 10 stale spans in one
document. Documents are templated policy prose with a notice inserted on top, so every span
is stale. Run: pytest tests/benchmarks -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import random
import statistics
import time
from pathlib import Path

from labeler.core.anchoring import review
from labeler.core.anchoring.candidates import propose
from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Query, Span, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.review import ReviewScreen
from tests.benchmarks.results import note

SPANS_PER_DOC = 10
ACCEPTS = 7
"""Accepts timed per store (its median is printed): one write is at the disk's mercy."""
WHO = ("The customer", "A subscriber", "The account owner", "Each member", "The reseller")
DOES = ("may request", "must submit", "can cancel", "will receive", "should review")
WHAT = ("a refund", "a written notice", "the annual plan", "an invoice", "a credit note")


def document(rng: random.Random) -> str:
    """About 6 KB: sections of templated sentences, as policy documents repeat themselves."""
    parts = []
    for section in range(1, 13):
        body = " ".join(
            f"{rng.choice(WHO)} {rng.choice(DOES)} {rng.choice(WHAT)} within "
            f"{rng.randint(2, 90)} days."
            for _ in range(rng.randint(4, 8))
        )
        parts.append(f"## Section {section}\n\n{body}\n\n")
    return "".join(parts)


def build(tmp: Path, n_docs: int) -> tuple[Store, Corpus]:
    """A store bound to `n_docs` documents with 10 spans each, and the edited corpus."""
    rng = random.Random(7)
    old = Corpus.from_texts({f"doc-{d:04}.md": document(rng) for d in range(n_docs)})
    store = Store.open(tmp / f"bench-{n_docs}.db")
    store.bind(old.doc_hashes)
    queries = []
    for d, doc in enumerate(old):
        starts = sorted(rng.sample(range(0, len(doc.text) - 200), SPANS_PER_DOC))
        spans = tuple(Span.from_text(doc.text, doc.id, s, s + rng.randint(40, 160)) for s in starts)
        queries.append(Query(f"q-{d:05}", f"Question {d}?", status=Status.LABELLED, evidence=spans))
    with store.write() as db:
        store.put_queries(queries, {d.id: d.text for d in old}, db=db)
    notice = "> Notice: this policy was updated.\n\n"
    return store, Corpus.from_texts({d.id: notice + d.text for d in old})


async def open_screen(store: Store, corpus: Corpus, waiting: int) -> tuple[float, float]:
    """Seconds until the screen shows its list, and until the first candidates are in."""
    app = SpanlabApp(store, corpus, annotator="bench", screen="review")
    started = time.perf_counter()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        opened = time.perf_counter() - started
        await app.workers.wait_for_complete()
        await pilot.pause()
        first = time.perf_counter() - started
        screen = app.screen
        assert isinstance(screen, ReviewScreen) and len(screen.items) == waiting
        assert screen.chosen is not None
    return opened, first


async def test_review_screen_opens_with_10000_stale_spans(tmp_path: Path) -> None:
    small = build(tmp_path, 1)
    large = build(tmp_path, 1_000)
    await open_screen(*small, 10)  # warm-up: imports, stylesheets, themes
    t_small, first_small = await open_screen(*small, 10)
    t_large, first_large = await open_screen(*large, 10_000)
    started = time.perf_counter()
    fresh = Store.open(tmp_path / "bench-1000.db")  # a connection that has checked nothing
    assert len(review.pending(fresh, large[1])) == 10_000
    t_pending = time.perf_counter() - started
    d_small, d_large = decide(*small), decide(*large)
    note("review screen open, 10,000 stale", t_large * 1000, "ms", 1000)
    note("one accept, 10,000 stale vs 10", d_large / d_small, "x", 2)
    print(
        f"\nreview screen open:  10 stale spans {t_small:.3f} s   "
        f"10,000 stale spans / 1,000 docs {t_large:.3f} s   ratio {t_large / t_small:.2f}x"
        f"   (target ≤ 1 s)"
        f"\nfirst candidates in: {first_small:.3f} s   {first_large:.3f} s"
        f"\nreview.pending alone for 10,000, on a fresh connection: {t_pending:.3f} s"
        f"\none accept, median of {ACCEPTS}: 10 stale spans {d_small * 1000:.1f} ms   "
        f"10,000 stale spans {d_large * 1000:.1f} ms   ratio {d_large / d_small:.2f}x"
        f"   (target ≤ 2x)"
    )


def decide(store: Store, corpus: Corpus) -> float:
    """Median seconds for one accept, each span moved to its best candidate; the waiting
    list is read once first, as the screen does."""
    times = []
    for item in review.pending(store, corpus)[:ACCEPTS]:
        best = propose(item.span, item.old_text, item.new_text, limit=1).candidates[0]
        started = time.perf_counter()
        review.accept(store, corpus, item.span_id, best.start, best.end, annotator="b")
        times.append(time.perf_counter() - started)
    return statistics.median(times)

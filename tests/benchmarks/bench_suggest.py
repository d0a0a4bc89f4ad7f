"""Suggested evidence on the demo (issue 15): how often a labelled span is among the top 1
and top 5 suggested sentences, lexical only and fused with MiniLM, and what the index
costs against a plain read of the texts. Prints numbers; asserts only that they exist.

`SPANLAB_BENCH_SUGGEST_CSV=path/to/chroma-csv/questions.csv` also runs it on a
Chroma chunking-evaluation corpus (the folder `corpus` beside the CSV).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from evaluator.embedding import load_embedder
from evaluator.retrieval.suggest import Suggester, first_hit, with_embeddings
from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.suggest import SentenceIndex
from labeler.core.formats import chroma_csv
from labeler.core.labels import labelset
from labeler.core.resources import bundled
from labeler.core.values import Query

DEMO = bundled("data/demo")


def hit_rates(suggester: Suggester, queries: Sequence[Query]) -> tuple[int, int, int]:
    """(queries measured, hits at 1, hits at 5); abstention queries are left out."""
    measured = hit1 = hit5 = 0
    for q in queries:
        if q.abstain or not q.evidence:
            continue
        rank = first_hit(
            suggester.suggest(q.text, 5), [(s.doc, s.start, s.end) for s in q.evidence]
        )
        measured += 1
        hit1 += rank == 1
        hit5 += rank is not None
    return measured, hit1, hit5


def measure(root: Path, queries: Sequence[Query]) -> None:
    """Print hit@1 and hit@5, lexical and fused, and the index's cost, for one corpus."""
    corpus = Corpus.read(root)
    started = time.perf_counter()
    plain = sum(len(d.text) for d in Corpus.read(root))
    read = time.perf_counter() - started
    started = time.perf_counter()
    index = SentenceIndex(corpus)
    built = time.perf_counter() - started
    print(f"\n{root}: {len(index)} sentences, {plain:,} code points; index {built * 1e3:.0f} ms "
          f"vs reading the texts {read * 1e3:.0f} ms ({built / read:.1f}×)")  # fmt: skip
    lexical = hit_rates(Suggester(index), queries)
    report("lexical", lexical)
    started = time.perf_counter()
    fused_suggester = with_embeddings(index, load_embedder("minilm"))
    embedded = time.perf_counter() - started
    fused = hit_rates(fused_suggester, queries)
    report(f"lexical+MiniLM (embedding the sentences {embedded:.1f} s)", fused)
    print(f"  fused / lexical hit@5: {fused[2] / max(1, lexical[2]):.2f}, "
          f"hit@1: {fused[1] / max(1, lexical[1]):.2f}")  # fmt: skip
    assert lexical[0] == fused[0] > 0


def report(label: str, counts: tuple[int, int, int]) -> None:
    n, at1, at5 = counts
    print(f"  {label}: hit@1 {at1}/{n} = {at1 / n:.1%}, hit@5 {at5}/{n} = {at5 / n:.1%}")


def test_suggestions_find_the_demo_evidence() -> None:
    corpus = Corpus.read(DEMO / "corpus")
    measure(DEMO / "corpus", labelset.read(DEMO / "labels.json", corpus).queries)


def test_suggestions_on_a_chroma_fixture() -> None:
    csv = os.environ.get("SPANLAB_BENCH_SUGGEST_CSV")
    if not csv:
        print("\nset SPANLAB_BENCH_SUGGEST_CSV to run on a Chroma fixture")
        return
    root = Path(csv).parent / "corpus"
    queries = chroma_csv.read(Path(csv), Corpus.read(root), existing=()).queries
    measure(root, queries)

"""Evaluation overhead (§12): a cold `eval` of the demo with its four candidates against
embedding the same unique texts alone (target ≤ 1.25×), and a warm re-run against the
cold one (target ≤ 10%). Both sides run in this process, one after the other.
"""

from __future__ import annotations

import time
from pathlib import Path

from evaluator import candidates
from evaluator.chunking import chunk_corpus
from evaluator.embedding import MiniLMEmbedder
from evaluator.pipeline import RunOptions, run_evaluation
from evaluator.retrieval import embedded_text
from labeler.core import labelset
from labeler.core.corpus import Corpus
from labeler.core.resources import bundled


def test_cold_and_warm_eval_against_embedding_alone(tmp_path: Path) -> None:
    demo = bundled("data/demo")
    corpus = Corpus.read(demo / "corpus")
    labels = labelset.read(demo / "labels.json", corpus)
    cfile = candidates.read(demo / "candidates.toml")
    texts = {d.id: d.text for d in corpus}
    unique = {q.text for q in labels.queries}
    for cand in cfile.candidates:
        unique.update(embedded_text(c, texts) for c in chunk_corpus(cand.spec, corpus))

    started = time.perf_counter()
    MiniLMEmbedder.from_packages().embed(sorted(unique))
    alone = time.perf_counter() - started

    options = RunOptions(
        chroma_path=tmp_path / "chroma", cache_path=tmp_path / "cache.db", progress=False
    )

    def evaluate() -> float:
        t = time.perf_counter()
        run_evaluation(
            cfile, corpus, labels.queries, label_corpus_hash=labels.corpus_hash,
            label_set_hash=labels.label_set_hash, options=options,
        )  # fmt: skip
        return time.perf_counter() - t

    cold = evaluate()
    warm = evaluate()
    print(f"\nunique texts           {len(unique)}")
    print(f"embedding them alone   {alone:8.2f} s   ({len(unique) / alone:.1f} texts/s)")
    print(f"cold eval, 4 cands     {cold:8.2f} s   ratio to embedding alone {cold / alone:.2f}x "
          "(target <= 1.25x)")  # fmt: skip
    print(f"warm eval              {warm:8.2f} s   ratio to cold {warm / cold:.1%} (target <= 10%)")
    assert cold > 0 and warm > 0

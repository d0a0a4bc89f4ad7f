"""Evaluation overhead (§12): a cold `eval` of the demo with its four candidates against
embedding the same unique texts alone (target ≤ 1.25×), and a warm re-run against the
cold one (target ≤ 10%); and the same with real MiniLM on the scale benchmark's seeded
1 MB corpus (target: cold ≤ 1.1× embedding alone). Both sides run in this process, one
after the other. Beside wall time, CPU time (this process, every thread): on a shared
machine another process's load stretches the wall clock but hardly the CPU a step takes.
Run: pytest tests/benchmarks/bench_eval.py -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from evaluator import candidates
from evaluator.chunking import chunk_corpus
from evaluator.embedding import MiniLMEmbedder
from evaluator.pipeline import RunOptions, run_evaluation
from evaluator.retrieval import embedded_text
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.resources import bundled
from tests.benchmarks.bench_scale import CANDIDATES
from tests.benchmarks.results import record
from tests.benchmarks.scale_corpus import write_corpus, write_labels


def test_cold_and_warm_eval_against_embedding_alone(tmp_path: Path) -> None:
    demo = bundled("data/demo")
    corpus = Corpus.read(demo / "corpus")
    measure(tmp_path, corpus, labelset.read(demo / "labels.json", corpus),
            candidates.read(demo / "candidates.toml"), target=1.25, label="eval")  # fmt: skip


def test_one_megabyte_with_minilm_against_embedding_alone(tmp_path: Path) -> None:
    write_corpus(tmp_path / "corpus", 1)
    corpus = Corpus.read(tmp_path / "corpus")
    write_labels(corpus, tmp_path / "frozen.json")
    (tmp_path / "candidates.toml").write_text(
        CANDIDATES.replace('embedding = "openai:hash"', 'embedding = "minilm"'), encoding="utf-8"
    )
    measure(tmp_path, corpus, labelset.read(tmp_path / "frozen.json", corpus),
            candidates.read(tmp_path / "candidates.toml"), target=1.1,
            label="eval_1mb")  # fmt: skip


def measure(
    tmp_path: Path,
    corpus: Corpus,
    labels: labelset.LabelSet,
    cfile: candidates.CandidatesFile,
    target: float,
    label: str,
) -> None:
    texts = {d.id: d.text for d in corpus}
    unique = {q.text for q in labels.queries}
    for cand in cfile.candidates:
        unique.update(embedded_text(c, texts) for c in chunk_corpus(cand.spec, corpus))

    started, cpu = time.perf_counter(), time.process_time()
    MiniLMEmbedder.from_packages().embed(sorted(unique))
    alone, alone_cpu = time.perf_counter() - started, time.process_time() - cpu

    options = RunOptions(
        chroma_path=tmp_path / "chroma", cache_path=tmp_path / "cache.db", progress=False
    )

    def evaluate() -> tuple[float, float]:
        t, c = time.perf_counter(), time.process_time()
        run_evaluation(
            cfile, corpus, labels.queries, label_corpus_hash=labels.corpus_hash,
            label_set_hash=labels.label_set_hash, options=options,
        )  # fmt: skip
        return time.perf_counter() - t, time.process_time() - c

    (cold, cold_cpu), (warm, warm_cpu) = evaluate(), evaluate()
    n = len(cfile.candidates)
    print(f"\nunique texts           {len(unique)}   load average {os.getloadavg()[0]:.1f}")
    print(f"embedding them alone   {alone:8.2f} s   ({len(unique) / alone:.1f} texts/s)   "
          f"CPU {alone_cpu:8.2f} s")  # fmt: skip
    print(f"cold eval, {n} cands     {cold:8.2f} s   ratio to embedding alone {cold / alone:.2f}x "
          f"(target <= {target}x)   CPU {cold_cpu:8.2f} s  "
          f"{cold_cpu / alone_cpu:.2f}x")  # fmt: skip
    print(f"warm eval              {warm:8.2f} s   ratio to cold {warm / cold:.1%} (target <= 10%)"
          f"   CPU {warm_cpu:8.2f} s  {warm_cpu / cold_cpu:.1%}")  # fmt: skip
    record(label, {"demo" if label == "eval" else "minilm_1mb": {
        "texts": len(unique), "alone": alone, "alone_cpu": alone_cpu, "cold": cold,
        "cold_cpu": cold_cpu, "warm": warm, "warm_cpu": warm_cpu}})  # fmt: skip
    assert cold > 0 and warm > 0

"""spanlab against the peer (§12, issue 41): chunking_evaluation's own evaluation code
(`BaseEvaluation.run`, which `GeneralEvaluation` wraps) on its general evaluation data — the
five corpora and 472 questions in shared/fixtures/chunking-evaluation beside the checkout —
with its own `FixedTokenChunker` at 200 cl100k tokens, no overlap, and retrieval of 5;
spanlab on the same corpus, questions (read as chroma-csv), 200-token cl100k windows and k,
cold (empty cache and index) and warm. Both embed with the same int8 MiniLM (the peer
through a Chroma embedding function that calls spanlab's embedder), so the model is one
variable held fixed. Target: warm ≤ 0.02× the peer; the cold ratio is printed beside it.
Wall and CPU time, in one run.

The peer is not a dependency (it pulls openai and anthropic): install it from its repository
with `pip install --no-deps <checkout>` and `pip install fuzzywuzzy openai anthropic
backoff`; without it, or without the fixtures, this benchmark skips saying so. Run: pytest
tests/benchmarks/bench_peer.py -o python_files='bench_*.py' -s"""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evaluator import candidates
from evaluator.chunking.tokenizers import load_tokenizer
from evaluator.embedding import MiniLMEmbedder
from evaluator.pipeline import RunOptions, run_evaluation
from labeler.core.corpus.folder import Corpus
from labeler.core.formats import chroma_csv
from tests.benchmarks.results import record

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("SPANLAB_BENCH_PEER_DATA") or next(
    (d for up in (ROOT.parent, ROOT.parent.parent)
     if (d := up / "shared" / "fixtures" / "chunking-evaluation").is_dir()),
    ROOT.parent / "shared" / "fixtures" / "chunking-evaluation"))  # fmt: skip
"""The peer's data: shared/fixtures in the folder above the checkout (or a worktree's folder's), or
$SPANLAB_BENCH_PEER_DATA."""
TARGET = 0.02
"""spanlab's warm run against the peer's run."""
CANDIDATES = """
[settings]
baseline = "tok200"
embedding = "minilm"
retriever = "chroma"
k = 5

[[candidate]]
name = "tok200"
splitter = "tokens"
size = 200
overlap = 0
tokenizer = "tiktoken:cl100k_base"
"""


def timed(work: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and CPU seconds (this process, every thread) of `work`, and what it returned."""
    t, cpu = time.perf_counter(), time.process_time()
    found = work()
    return time.perf_counter() - t, time.process_time() - cpu, found


def peer_run() -> dict[str, Any]:
    """The peer's own evaluation of its FixedTokenChunker, embedding with spanlab's MiniLM."""
    from chromadb import EmbeddingFunction
    from chunking_evaluation.chunking import FixedTokenChunker
    from chunking_evaluation.evaluation_framework.base_evaluation import BaseEvaluation

    model = MiniLMEmbedder.from_packages()

    class MiniLM(EmbeddingFunction):  # type: ignore[type-arg]
        def __init__(self) -> None:
            pass

        def __call__(self, input: list[str]) -> list[Any]:  # Chroma's name
            return list(model.embed(list(input)))

    load_tokenizer("tiktoken:cl100k_base")  # cl100k offline, in tiktoken's registry for the peer
    paths = {p.stem: str(p) for p in sorted((DATA / "corpus").glob("*.md"))}
    evaluation = BaseEvaluation(str(DATA / "questions.csv"), corpora_id_paths=paths)
    chunker = FixedTokenChunker(chunk_size=200, chunk_overlap=0, encoding_name="cl100k_base")
    # The peer deletes its two collections before making them, expecting ValueError when
    # they are missing; Chroma 1.x raises NotFoundError. Made empty here, they are deleted.
    for name in ("auto_chunk", "auto_questions"):
        evaluation.chroma_client.get_or_create_collection(name)
    found: dict[str, Any] = evaluation.run(chunker, MiniLM(), retrieve=5)
    return found


def test_spanlab_against_the_peer(tmp_path: Path) -> None:
    if importlib.util.find_spec("chunking_evaluation") is None:
        pytest.skip("chunking_evaluation is not installed (see this module's docstring)")
    if not (DATA / "questions.csv").is_file():
        pytest.skip(f"no peer data at {DATA}")
    corpus = Corpus.read(DATA / "corpus")
    queries = chroma_csv.read(DATA / "questions.csv", corpus, existing=()).queries
    (tmp_path / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    cfile = candidates.read(tmp_path / "candidates.toml")
    options = RunOptions(chroma_path=tmp_path / "chroma", cache_path=tmp_path / "cache.db",
                         progress=False)  # fmt: skip

    def spanlab() -> Any:
        return run_evaluation(cfile, corpus, queries, label_corpus_hash=corpus.hash,
                              label_set_hash="bench", options=options)  # fmt: skip

    peer, peer_cpu, scores = timed(peer_run)
    cold, cold_cpu, _ = timed(spanlab)
    warm, warm_cpu, result = timed(spanlab)
    recall = result.runs["tok200"].result.aggregates.get("evidence_recall@k")
    print(f"\n{len(queries)} questions, {len(corpus.documents)} documents;"
          f" load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"peer (chunking_evaluation)  {peer:8.2f} s   CPU {peer_cpu:8.2f} s"
          f"   recall {scores['recall_mean']:.3f}")  # fmt: skip
    print(f"spanlab cold               {cold:8.2f} s   CPU {cold_cpu:8.2f} s"
          f"   {cold / peer:.3f}x the peer (CPU {cold_cpu / peer_cpu:.3f}x)")  # fmt: skip
    print(f"spanlab warm               {warm:8.2f} s   CPU {warm_cpu:8.2f} s"
          f"   {warm / peer:.3f}x the peer (CPU {warm_cpu / peer_cpu:.3f}x;"
          f" target <= {TARGET}x)   evidence recall@5 {recall}")  # fmt: skip
    figures = {"peer": peer, "peer_cpu": peer_cpu, "cold": cold, "cold_cpu": cold_cpu,
               "warm": warm, "warm_cpu": warm_cpu}  # fmt: skip
    record("peer", {"peer": figures})
    assert peer > 0 and cold > 0 and warm > 0

"""texts/s through a real OpenAI-compatible server (Infinity, TEI, llama.cpp…) vs MiniLM in process.

Runs only when SPANLAB_BENCH_SERVER_URL names the server's API base; the two embed the same
passages in alternating rounds (the machine is shared), and the cosine between their vectors
says whether the server runs the same model. How to serve the packaged MiniLM with Infinity,
offline: the README's "Embeddings from a server".
Run (a CPU server on this machine needs SPANLAB_EMBEDDING_WORKERS=1 to answer within 30 s):
SPANLAB_BENCH_SERVER_URL=http://127.0.0.1:7997 SPANLAB_EMBEDDING_WORKERS=1 \
    pytest tests/benchmarks/bench_real_server.py -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from evaluator.embedding.base import Vectors
from evaluator.embedding.minilm import MiniLMEmbedder
from evaluator.embedding.server import OpenAIEmbedder
from tests.benchmarks.scale_corpus import Writer

URL_ENV = "SPANLAB_BENCH_SERVER_URL"
MODEL_ENV = "SPANLAB_BENCH_SERVER_MODEL"
"""The model name the server knows; all-MiniLM-L6-v2 unless set."""
TEXTS_ENV = "SPANLAB_BENCH_TEXTS"
ROUNDS = 3
WORDS = 90
"""Words per passage: about the 128-token windows of the demo's baseline."""
FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "chunking-evaluation"


def passages(n: int) -> list[str]:
    """`n` passages of WORDS words: real prose from the fixtures when present, else seeded."""
    words: list[str] = []
    for path in sorted((FIXTURES / "corpus").glob("*.md")):
        words += path.read_text(encoding="utf-8").split()
    if len(words) < n * WORDS:
        writer = Writer(seed=21)
        while len(words) < n * WORDS:
            words += writer.sentence().split()
    step = max(WORDS, (len(words) - WORDS) // n)  # spread over every document
    return [" ".join(words[i * step : i * step + WORDS]) for i in range(n)]


def _timed(embed: Callable[[Sequence[str]], Vectors], texts: list[str]) -> tuple[float, Vectors]:
    start = time.perf_counter()
    vectors = embed(texts)
    return len(texts) / (time.perf_counter() - start), vectors


def test_real_server_vs_in_process() -> None:
    url = os.environ.get(URL_ENV, "")
    if not url:
        pytest.skip(f"set {URL_ENV} to a running server's API base (e.g. http://127.0.0.1:7997)")
    texts = passages(int(os.environ.get(TEXTS_ENV, "400")))
    local = MiniLMEmbedder.from_packages()
    remote = OpenAIEmbedder(os.environ.get(MODEL_ENV, "all-MiniLM-L6-v2"), url)
    local.embed(texts[:8])  # load the session outside the timing
    remote.embed(texts[:8])  # the probe and the connection too
    rates: dict[str, list[float]] = {"in process": [], "server": []}
    for _ in range(ROUNDS):
        rate, mine = _timed(local.embed, texts)
        rates["in process"].append(rate)
        rate, theirs = _timed(remote.embed, texts)
        rates["server"].append(rate)
    assert mine.shape[0] == theirs.shape[0] == len(texts)
    _report(texts, rates, mine, theirs, remote.fingerprint)


def _report(
    texts: list[str], rates: dict[str, list[float]], mine: Vectors, theirs: Vectors, fp: str
) -> None:
    local, served = (statistics.median(rates[k]) for k in ("in process", "server"))
    print(f"\n{len(texts)} passages of {WORDS} words, {ROUNDS} alternating rounds; server {fp}")
    for name, values in rates.items():
        print(f"  {name:<10}: median {statistics.median(values):6.1f} texts/s "
              f"(rounds {', '.join(f'{v:.1f}' for v in values)})")  # fmt: skip
    print(f"  ratio server / in process: {served / local:.2f}")
    if mine.shape == theirs.shape:
        cosine = np.sum(mine * theirs, axis=1)
        print(f"  cosine to in-process MiniLM: min {cosine.min():.6f}, mean {cosine.mean():.6f}")
    else:
        print(f"  widths differ ({mine.shape[1]} vs {theirs.shape[1]}): another model, no cosine")

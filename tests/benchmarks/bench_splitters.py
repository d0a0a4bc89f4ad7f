"""Throughput of every splitter on a ~50 MB Markdown corpus, side by side with `chars`.

Fixed character windows are pure arithmetic, so every other splitter is reported as a
ratio to them measured in the same run. SPANLAB_BENCH_MB scales the corpus (default 50).
Run: pytest tests/benchmarks/bench_splitters.py -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.chunking import SplitterSpec, split_text
from labeler.core.corpus.folder import Corpus

DOC_CHARS = 100_000
WORDS = [
    word
    for line in (
        "refund invoice within days account customer plan billing cycle upgrade downgrade",
        "the a of to and is may must will after before each every policy support ticket",
        "café naïve Größe 東京 data export region limit quota token window chunk evidence",
    )
    for word in line.split()
]
CHARS = SplitterSpec("chars", 512, 128)
HERE = "tests.benchmarks.bench_splitters"
CANDIDATES = {
    "chars 512/128": CHARS,
    "words 128/32": SplitterSpec("words", 128, 32),
    "tokens minilm 128/32": SplitterSpec("tokens", 128, 32),
    "tokens cl100k 128/32": SplitterSpec("tokens", 128, 32, tokenizer="tiktoken:cl100k_base"),
    "recursive 512/128": SplitterSpec("recursive", 512, 128),
    "recursive tokens 128/32": SplitterSpec("recursive", 128, 32, unit="tokens"),
    "sentences 512/1": SplitterSpec("sentences", 512, 1),
    "markdown 512/128": SplitterSpec("markdown", 512, 128),
    "python 512/128": SplitterSpec("python", 512, 128, function=f"{HERE}:plugin_windows"),
}


def plugin_windows(text: str, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """A user plugin: character windows, so its cost over `chars` is the plugin overhead."""
    for start in range(0, len(text), size - overlap):
        yield start, min(start + size, len(text))
        if start + size >= len(text):
            return


def sentence(rng: random.Random) -> str:
    words = rng.choices(WORDS, k=rng.randint(6, 22))
    return " ".join(words).capitalize() + rng.choice(".....?!")


def block(rng: random.Random, level: int) -> str:
    kind = rng.choices(("para", "list", "table", "code", "heading"), (8, 2, 1, 1, 2))[0]
    if kind == "heading":
        return "#" * rng.randint(1, level) + " " + " ".join(rng.choices(WORDS, k=3)).title()
    if kind == "list":
        return "\n".join(f"- {sentence(rng)}" for _ in range(rng.randint(2, 7)))
    if kind == "table":
        header = f"| {rng.choice(WORDS)} | {rng.choice(WORDS)} | {rng.choice(WORDS)} |"
        body = [
            f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} | {sentence(rng)} |"
            for _ in range(rng.randint(2, 30))
        ]
        return "\n".join([header, "|---|---:|---|", *body])
    if kind == "code":
        lines = [f"    {rng.choice(WORDS)}_{i} = compute({rng.randint(0, 99)})" for i in range(40)]
        return "```python\n" + "\n".join(lines[: rng.randint(3, 40)]) + "\n```"
    return " ".join(sentence(rng) for _ in range(rng.randint(2, 8)))


def document(rng: random.Random) -> str:
    parts = [f"# {' '.join(rng.choices(WORDS, k=4)).title()}"]
    size = len(parts[0])
    while size < DOC_CHARS:
        parts.append(block(rng, 3))
        size += len(parts[-1]) + 2
    return "\n\n".join(parts) + "\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """A deterministic Markdown corpus written to disk and read back as canonical text."""
    folder = tmp_path_factory.mktemp("corpus")
    rng = random.Random(20240501)
    target = float(os.environ.get("SPANLAB_BENCH_MB", "50")) * 1_000_000
    written, i = 0, 0
    while written < target:
        text = document(rng)
        Path(folder / f"doc-{i:04d}.md").write_text(text, encoding="utf-8")
        written, i = written + len(text.encode("utf-8")), i + 1
    return Corpus.read(folder)


def run(spec: SplitterSpec, corpus: Corpus) -> tuple[float, int]:
    began = time.perf_counter()
    chunks = sum(len(split_text(spec, doc.text)) for doc in corpus)
    return time.perf_counter() - began, chunks


def test_splitter_throughput(corpus: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(Path(corpus.root or ".").parent / "tiktoken"))
    megabytes = sum(len(d.text.encode("utf-8")) for d in corpus) / 1e6
    for spec in CANDIDATES.values():  # load tokenizers outside the timings
        spec.validate("bench")
    print(f"\n{len(corpus)} documents, {megabytes:.1f} MB")
    print(f"{'splitter':<26}{'seconds':>9}{'MB/s':>9}{'chunks':>10}{'x chars':>9}")
    base = 0.0
    for name, spec in CANDIDATES.items():
        seconds, chunks = run(spec, corpus)
        base = base or seconds
        print(
            f"{name:<26}{seconds:>9.2f}{megabytes / seconds:>9.2f}{chunks:>10}"
            f"{seconds / base:>9.1f}"
        )
        assert chunks >= len(corpus)

"""Token counts primed in batches equal the one-by-one counts (index statistics, §7)."""

from __future__ import annotations

import functools

import pytest

from evaluator.chunk import Chunk
from evaluator.chunking.tokenizers import TokenizerAdapter, count_many, load_tokenizer
from evaluator.metrics import TokenCounter

TEXT = "Refunds take five days. Größe 東京 café naïve.\n\n| a | b |\n|---|---|\n" * 40


class Words:
    """A tokenizer without a batched call: count_many falls back to one call per text."""

    name = "words"

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return []

    def count(self, text: str) -> int:
        return len(text.split())


@pytest.mark.parametrize("name", ["sentence-transformers/all-MiniLM-L6-v2", "words"])
def test_primed_counts_equal_single_counts(name: str) -> None:
    tokenizer: TokenizerAdapter = Words() if name == "words" else load_tokenizer(name)
    texts = {"d.md": TEXT}
    chunks = [Chunk(f"c{i}", "d.md", i * 37, i * 37 + 90, "# Head > Sub" if i % 3 else "")
              for i in range(60)]  # fmt: skip
    single = TokenCounter(tokenizer.count, texts)
    primed = TokenCounter(lambda text: pytest.fail("primed chunks are not counted again"), texts)
    primed.prime(chunks, functools.partial(count_many, tokenizer))
    assert [primed(c) for c in chunks] == [single(c) for c in chunks]
    assert all(single(c) > 0 for c in chunks)

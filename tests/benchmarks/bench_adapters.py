"""Exactness of each library splitter's offsets on the hard documents and the demo corpus.

Not timed: it prints, per configuration, how many chunks have text equal to the canonical
text at their offsets and how many documents pass the whole §14 contract, so the numbers
in the README can be re-measured when a library moves.
Run: pytest tests/benchmarks/bench_adapters.py -o python_files='bench_*.py' -s
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from evaluator.chunking.adapters import library_chunks
from evaluator.chunking.adapters.verify import AmbiguousPlacement, ambiguities, verify
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError
from tests.evaluator.chunking.adapters.hard_docs import HARD_DOCS

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "corpus"
CL100K = "tiktoken:cl100k_base"
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("semchunk", {"chunk_size": 64, "tokenizer_or_token_counter": "character"}),
    ("semchunk", {"chunk_size": 128, "tokenizer_or_token_counter": CL100K, "overlap": 0.25}),
    ("semantic-text-splitter:TextSplitter", {"capacity": 200, "overlap": 20}),
    ("semantic-text-splitter:MarkdownSplitter",
     {"capacity": 128, "huggingface_tokenizer": "minilm"}),
    ("chonkie:SentenceChunker", {"chunk_size": 64, "tokenizer": CL100K}),
    ("chonkie:RecursiveChunker", {"chunk_size": 512}),
    ("chonkie:RecursiveChunker", {"chunk_size": 64, "tokenizer": "minilm"}),
    ("chonkie:TokenChunker", {"chunk_size": 200, "chunk_overlap": 50}),
    ("chonkie:TokenChunker", {"chunk_size": 64, "chunk_overlap": 16, "tokenizer": CL100K}),
    ("langchain:RecursiveCharacterTextSplitter", {"chunk_size": 200, "chunk_overlap": 50}),
    ("langchain:RecursiveCharacterTextSplitter",
     {"chunk_size": 200, "chunk_overlap": 50, "strip_whitespace": False}),
    ("langchain:CharacterTextSplitter",
     {"chunk_size": 200, "chunk_overlap": 50, "separator": "\n"}),
    ("langchain:TokenTextSplitter",
     {"chunk_size": 64, "chunk_overlap": 16, "encoding_name": "cl100k_base"}),
    ("llama-index:SentenceSplitter", {"chunk_size": 64, "chunk_overlap": 16}),
    ("llama-index:TokenTextSplitter", {"chunk_size": 64, "chunk_overlap": 16}),
    ("llama-index:MarkdownNodeParser", {}),
]  # fmt: skip


def _measure(splitter: str, options: dict[str, Any], docs: dict[str, str]) -> str:
    exact = total = passed = ambiguous = 0
    for doc, text in docs.items():
        chunks = library_chunks(splitter, options, text)
        total += len(chunks)
        exact += sum(text[max(c.start, 0) : c.end] == c.text for c in chunks if c.start >= 0)
        ambiguous += len(ambiguities(text, chunks))
        try:
            verify(doc, text, chunks)
            passed += 1
        except ConfigError:
            pass
    return f"{exact}/{total} exact, {passed}/{len(docs)} docs pass, {ambiguous} ambiguous"


def test_exactness_per_adapter() -> None:
    demo = {d.id: d.text for d in Corpus.read(DEMO)}
    warnings.simplefilter("ignore", AmbiguousPlacement)
    for splitter, options in CONFIGS:
        hard = _measure(splitter, options, HARD_DOCS)
        on_demo = _measure(splitter, options, demo)
        print(f"{splitter} {options}\n    hard: {hard}\n    demo: {on_demo}")

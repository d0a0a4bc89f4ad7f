"""The lexical and exact retrievers, with scores worked out by hand."""

from __future__ import annotations

import numpy as np

from evaluator.chunk import Chunk
from evaluator.retrieval import QueryInput, embedded_text
from evaluator.retrieval.exact import ExactRetriever
from evaluator.retrieval.lexical import LexicalRetriever, tokens

TEXTS = {"a.md": "Refunds take 14 days. Shipping is free over 50 EUR.", "b.md": "Refund policy"}
CHUNKS = [
    Chunk("c2", "a.md", 22, 51),  # "Shipping is free over 50 EUR."
    Chunk("c1", "a.md", 0, 22),  # "Refunds take 14 days. "
    Chunk("c3", "b.md", 0, 13, prefix="Refunds"),  # prefix is embedded with the chunk
]


def test_tokens_are_lower_case_alphanumeric_runs() -> None:
    assert tokens("Refunds: 14-Day (EUR)!") == {"refunds", "14", "day", "eur"}


def test_lexical_scores_are_the_share_of_distinct_query_tokens() -> None:
    retriever = LexicalRetriever(CHUNKS, TEXTS)
    [ranked] = retriever.search([QueryInput("q", "refunds refunds 14 days?")], depth=3)
    # distinct query tokens: refunds, 14, days -> c1 has 3/3; c3 has "refunds" (prefix) 1/3
    assert [(r.chunk.id, round(r.score, 4)) for r in ranked] == [
        ("c1", 1.0),
        ("c3", 0.3333),
        ("c2", 0.0),
    ]


def test_lexical_ties_go_to_the_earlier_chunk() -> None:
    retriever = LexicalRetriever(CHUNKS, TEXTS)
    [ranked] = retriever.search([QueryInput("q", "nothing matches")], depth=2)
    assert [r.chunk.id for r in ranked] == ["c1", "c2"]  # a.md 0 before a.md 22


def test_embedded_text_puts_the_prefix_first() -> None:
    assert embedded_text(CHUNKS[2], TEXTS) == "Refunds\nRefund policy"
    assert embedded_text(CHUNKS[1], TEXTS) == "Refunds take 14 days. "


def test_exact_ranks_by_cosine_with_ties_to_the_earlier_chunk() -> None:
    vectors = np.array([[1, 0], [1, 0], [0.6, 0.8]], dtype=np.float32)  # c2, c1, c3
    retriever = ExactRetriever(CHUNKS, vectors)
    query = QueryInput("q", "", np.array([0.8, 0.6], dtype=np.float32))
    [ranked] = retriever.search([query], depth=3)
    # cos(c1) = cos(c2) = 0.8 (tie: c1 is earlier); cos(c3) = 0.48 + 0.48 = 0.96
    assert [r.chunk.id for r in ranked] == ["c3", "c1", "c2"]
    assert [round(r.score, 4) for r in ranked] == [0.96, 0.8, 0.8]


def test_exact_respects_depth() -> None:
    vectors = np.eye(3, dtype=np.float32)
    retriever = ExactRetriever(CHUNKS, vectors)
    query = QueryInput("q", "", np.array([0, 0, 1], dtype=np.float32))
    assert len(retriever.search([query], depth=2)[0]) == 2

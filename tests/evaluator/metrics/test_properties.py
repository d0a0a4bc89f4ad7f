"""Properties of the measures over random chunkings, spans and rankings (hypothesis).

Spans within a query do not overlap (as labels are drawn); chunks may overlap and nest.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.chunk import Chunk
from evaluator.metrics.base import Value
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query, Span
from tests.evaluator.metrics.fixtures import SETTINGS, TEXTS, chunk, query, span
from tests.evaluator.metrics.helpers import values

AT_K = (
    "evidence_recall@k",
    "hit@k",
    "document_hit@k",
    "unique_evidence@k",
    "duplicate_pairs@k",
    "prompt_tokens@k",
    "chroma_recall",
    "chroma_precision",
    "chroma_iou",
)


@st.composite
def ranges(draw: st.DrawFn, doc: str) -> tuple[int, int]:
    size = len(TEXTS[doc])
    start = draw(st.integers(0, size - 1))
    return start, draw(st.integers(start + 1, size))


@st.composite
def chunks(draw: st.DrawFn) -> list[Chunk]:
    docs = draw(st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=12))
    return [chunk(d, *draw(ranges(d))) for d in docs]


@st.composite
def spans(draw: st.DrawFn) -> list[Span]:
    """1–3 non-overlapping spans, in one or two documents."""
    found: list[Span] = []
    for doc in draw(st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=3)):
        start, end = draw(ranges(doc))
        if all(s.doc != doc or s.end <= start or end <= s.start for s in found):
            found.append(span(doc, start, end))
    return found


def ranked_list(items: list[Chunk]) -> list[Ranked]:
    return [Ranked(c, 1.0 - i / 100) for i, c in enumerate(items)]


@settings(max_examples=150, deadline=None)
@given(index=chunks(), evidence=spans(), seed=st.integers(0, 2**16))
def test_bounds_and_iou_below_recall_and_precision(
    index: list[Chunk], evidence: list[Span], seed: int
) -> None:
    order = random.Random(seed).sample(index, len(index))
    got = values(query("qp", *evidence), ranked_list(order), index=index)
    for name in ("evidence_recall@k", "oracle_recall", "chroma_recall", "chroma_iou"):
        value = got[name]
        assert isinstance(value, float) and 0.0 <= value <= 1.0, name
    precision, iou, recall = got["chroma_precision"], got["chroma_iou"], got["chroma_recall"]
    assert isinstance(precision, float) and 0.0 <= precision <= 1.0
    assert isinstance(iou, float) and isinstance(recall, float)
    assert iou <= min(recall, precision) + 1e-12
    omega = got["chroma_precision_omega"]
    assert isinstance(omega, float) and 0.0 <= omega <= 1.0
    assert_recall_below_oracle(got)


def assert_recall_below_oracle(got: dict[str, Value | None]) -> None:
    recall, oracle = got["evidence_recall@k"], got["oracle_recall"]
    assert isinstance(recall, float) and isinstance(oracle, float)
    assert recall <= oracle


@settings(max_examples=150, deadline=None)
@given(index=chunks(), evidence=spans(), seed=st.integers(0, 2**16))
def test_order_below_k_and_within_k_does_not_change_at_k_measures(
    index: list[Chunk], evidence: list[Span], seed: int
) -> None:
    rng = random.Random(seed)
    k = SETTINGS.k
    order = rng.sample(index, len(index))
    shuffled = rng.sample(order[:k], len(order[:k])) + rng.sample(order[k:], len(order[k:]))
    q: Query = query("qp", *evidence)
    before = values(q, ranked_list(order), index=index)
    after = values(q, ranked_list(shuffled), index=index)
    assert {m: before[m] for m in AT_K} == {m: after[m] for m in AT_K}
    assert before["oracle_recall"] == after["oracle_recall"]
    assert before["chroma_precision_omega"] == after["chroma_precision_omega"]

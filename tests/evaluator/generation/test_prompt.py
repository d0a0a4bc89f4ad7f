"""The prompt: a candidate's context at budget (the one fill rule), numbered as sources."""

from __future__ import annotations

import pytest

from evaluator.candidate_generation import Generation
from evaluator.chunk import Chunk
from evaluator.generation.prompt import build, fill
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.settings import MetricSettings
from evaluator.metrics.view import QueryView
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query, Span

TEXT = "aaaaaaaaa.bbbbbbbbb.ccccccccccc."
TEXTS = {"d.md": TEXT}
GEN = Generation("http://h/v1", "m", "t", "S:\n{{sources}}\nQ: {{question}}\nelse NOPE",
                 "sha256:t", "NOPE")  # fmt: skip


def view(budget: int | None, question: str = "b?", prefix: str = "") -> QueryView:
    chunks = [Chunk("x", "d.md", 0, 10, prefix), Chunk("y", "d.md", 10, 20),
              Chunk("z", "d.md", 20, 32)]  # fmt: skip
    query = Query("q-0001", question, evidence=(Span.from_text(TEXT, "d.md", 12, 18),))
    settings = MetricSettings(k=1, depth=3, budget=budget)
    ranked = [Ranked(c, 1.0) for c in chunks]
    return QueryView(query, ranked, ChunkIndex.build(chunks), settings, TokenCounter(len, TEXTS))


def test_the_sources_are_the_context_at_budget_numbered() -> None:
    p = build(view(20), GEN, TEXTS.__getitem__)  # 10 + 10 characters fit; z would cross
    assert [s.chunk.id for s in p.sources] == ["x", "y"]
    assert p.context == "[1] (d.md) aaaaaaaaa.\n\n[2] (d.md) bbbbbbbbb."
    assert p.text == f"S:\n{p.context}\nQ: b?\nelse NOPE"
    assert p.messages() == [{"role": "user", "content": p.text}]
    assert [s.chunk.id for s in build(view(19), GEN, TEXTS.__getitem__).sources] == ["x"]


def test_a_prefix_is_sent_on_its_own_line_and_counts_in_the_budget() -> None:
    p = build(view(23, prefix="hd"), GEN, TEXTS.__getitem__)  # 12 + 10 fit 23
    assert p.context == "[1] (d.md) hd\naaaaaaaaa.\n\n[2] (d.md) bbbbbbbbb."


def test_a_view_at_k_is_refused() -> None:
    with pytest.raises(ValueError, match="at budget"):
        build(view(None), GEN, TEXTS.__getitem__)


def test_the_same_context_and_question_share_a_key_whatever_the_candidate() -> None:
    a, b = build(view(20), GEN, TEXTS.__getitem__), build(view(20), GEN, TEXTS.__getitem__)
    assert a.key(GEN) == b.key(GEN)
    assert a.key(GEN) != build(view(19), GEN, TEXTS.__getitem__).key(GEN)
    assert a.key(GEN) != build(view(20, "c?"), GEN, TEXTS.__getitem__).key(GEN)


def test_placeholders_in_the_question_or_sources_are_sent_as_written() -> None:
    assert fill("{{sources}}|{{question}}", "S {{question}}", "Q {{sources}}") == (
        "S {{question}}|Q {{sources}}")  # fmt: skip
    assert fill("{{question}}|{{sources}}", "S", "Q {{sources}}") == "Q {{sources}}|S"

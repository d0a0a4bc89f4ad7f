"""The stage against the extractive loopback server: a candidate whose chunks overlap
sends the same sentence twice, gains recall at budget and loses completeness — the effect
only answers show — and a second candidate with the same context asks nothing twice."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evaluator.candidate_generation import Generation
from evaluator.chunk import Chunk
from evaluator.generation.cache import AnswerCache
from evaluator.generation.compare import RECALL_UP, compare_answers
from evaluator.generation.stage import Asking, Retrieved, answer, prompts
from evaluator.metrics.index import TokenCounter
from evaluator.metrics.settings import MetricSettings
from evaluator.metrics.view import covers
from evaluator.retrieval.base import Ranked
from evaluator.runs.generation_text import candidate_flag
from labeler.core.values import Query, Span
from tests.evaluator.generation.chat_server import State, serve

TEXT = ("Refunds are paid within thirty days of the request. Refunds need the original "
        "receipt from the store. Shipping is free above fifty euros.")  # fmt: skip
TEXTS = {"p.md": TEXT}
TEMPLATE = ('Answer from the sources, citing [n]. If they do not hold the answer, reply '
            'exactly: "NOT IN SOURCES"\n\n{{sources}}\n\nQuestion: {{question}}\n')  # fmt: skip
SPAN = Span.from_text(TEXT, "p.md", 0, 51)  # the first sentence
QUERY = Query("q-0001", "When are refunds paid and what do refunds need?", evidence=(SPAN,),
              facts=(("thirty days",), ("original receipt", "the receipt")))  # fmt: skip
ABSTAIN = Query("q-0002", "Which colour is the logo of the company?", abstain=True)
CUT = Chunk("b1", "p.md", 0, 40)  # ends inside the first sentence: 40/51 < 0.8
RECEIPT = Chunk("b2", "p.md", 52, 103)
WHOLE, AGAIN = Chunk("c1", "p.md", 0, 52), Chunk("c2", "p.md", 0, 56)  # overlapping


@pytest.fixture
def url() -> Iterator[str]:
    state = State()
    state.mode = "extractive"
    server = serve(state)
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def asking(url: str) -> Asking:
    g = Generation(url, "tiny", "t.txt", TEMPLATE, "sha256:t", "NOT IN SOURCES", timeout=5.0)
    settings = MetricSettings(k=2, depth=3, budget=110)  # characters: two chunks fit
    return Asking(g, settings, TokenCounter(len, TEXTS), TEXTS.__getitem__)


def retrieved(name: str, chunks: list[Chunk], hit: bool) -> Retrieved:
    ranked = [Ranked(c, 1.0 - i / 10) for i, c in enumerate(chunks)]
    return Retrieved(name, {"q-0001": ranked, "q-0002": ranked}, None, {"q-0001": hit},
                     {"q-0001": float(hit)})  # fmt: skip


def test_duplicate_context_gains_recall_and_loses_completeness(url: str) -> None:
    assert not covers(CUT, SPAN, 0.8) and covers(WHOLE, SPAN, 0.8)  # recall 0 -> 1
    at = asking(url)
    base = retrieved("base", [CUT, RECEIPT, WHOLE], False)
    dup = retrieved("dup", [WHOLE, AGAIN, RECEIPT], True)
    asked = prompts(at, [QUERY, ABSTAIN], [base, dup], "all")
    assert [(n, p.query, len(p.sources)) for n, p in asked] == [
        ("base", "q-0001", 2), ("base", "q-0002", 2),
        ("dup", "q-0001", 2), ("dup", "q-0002", 2)]  # fmt: skip
    records, tally = answer(at, AnswerCache(), asked, {"q-0001": QUERY, "q-0002": ABSTAIN})
    assert (tally.asked, tally.cached) == (4, 0)
    b, d = records[0], records[2]
    assert b.answer == ("Refunds are paid within thirty days of t [1]. "
                        "Refunds need the original receipt from the store [2].")  # fmt: skip
    assert d.answer == ("Refunds are paid within thirty days of the request [1]. "
                        "Refunds are paid within thirty days of the request [2].")  # fmt: skip
    assert [f.stated for f in b.facts] == [True, True] and [f.stated for f in d.facts] == [
        True,
        False,
    ]
    assert (b.value("completeness"), d.value("completeness")) == (1.0, 0.5)
    assert (b.value("repeated_sentences"), d.value("repeated_sentences")) == (0.0, 1.0)
    assert (b.value("citation_precision"), d.value("citation_precision")) == (0.0, 1.0)
    assert (b.overlapping, d.overlapping) == (0, 1)
    assert records[1].answer == records[3].answer == "NOT IN SOURCES"
    assert records[1].value("abstention") == records[3].value("abstention") == 1.0
    comp = compare_answers(records[:2], records[2:], "dup", {"q-0001": 1.0}, resamples=200,
                           seed=1, recall=0.5)  # fmt: skip
    assert comp.worse_at_higher_recall and comp.duplicate_context
    assert comp.overlapping == (0.0, 1.0)  # each dup prompt sends 0-52 and 0-56 of p.md
    assert candidate_flag("dup", comp) == (
        "dup: recall ↑ completeness ↓ — recall at budget +0.500 while completeness -0.500 — "
        "duplicate context (1.00 overlapping source pairs per prompt, baseline 0.00)")  # fmt: skip
    assert comp.checks["completeness"].lost == ("q-0001",)
    assert comp.checks["citation_precision"].gained == ("q-0001",)
    assert comp.checks["repeated_sentences"].lost == ("q-0001",)
    # the baseline's context held no evidence group, yet it answered: abstention 0 -> 1
    assert comp.checks["abstention"].gained == ("q-0001",) and comp.checks["abstention"].lost == ()
    (effect,) = comp.recall_up_completeness_down
    assert (effect.query, effect.kind, effect.recall_delta, effect.completeness_delta,
            effect.duplicate) == ("q-0001", RECALL_UP, 1.0, -0.5, True)  # fmt: skip


def test_send_hit_and_one_context_asked_once(url: str) -> None:
    at = asking(url)
    one, same = retrieved("one", [WHOLE, RECEIPT], True), retrieved("two", [WHOLE, RECEIPT], True)
    missed = retrieved("miss", [CUT, RECEIPT], False)
    asked = prompts(at, [QUERY, ABSTAIN], [one, same, missed], "hit")
    assert [(n, p.query) for n, p in asked] == [
        ("one", "q-0001"), ("one", "q-0002"), ("two", "q-0001"), ("two", "q-0002"),
        ("miss", "q-0002")]  # fmt: skip
    cache = AnswerCache()
    _, first = answer(at, cache, asked, {"q-0001": QUERY, "q-0002": ABSTAIN})
    assert (first.asked, first.cached) == (3, 2)  # two's prompts are one's, to the byte
    _, again = answer(at, cache, asked, {"q-0001": QUERY, "q-0002": ABSTAIN})
    assert (again.asked, again.cached) == (0, 5)

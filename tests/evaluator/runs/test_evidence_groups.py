"""Alternatives in a run (§18): run.json's evidence carries each span's group, only when it has
one (older runs read as before), and the TREC span files count a group as one item."""

from __future__ import annotations

from evaluator.runs.model_json import Reader
from evaluator.runs.model_queries import EvidenceRef, RankedEntry
from evaluator.runs.trec import Evidence, _first_ranks, span_items, span_qrels
from labeler.core.values import Span


def test_a_group_is_written_and_read_back_and_no_group_writes_no_key() -> None:
    grouped = EvidenceRef("a.md", 3, 9, group=2)
    assert grouped.to_json() == {"doc": "a.md", "start": 3, "end": 9, "group": 2}
    assert EvidenceRef.from_json(Reader(grouped.to_json(), "run.json")) == grouped
    alone = EvidenceRef("a.md", 3, 9)
    assert alone.to_json() == {"doc": "a.md", "start": 3, "end": 9}
    assert EvidenceRef.from_json(Reader(alone.to_json(), "run.json")).group is None


def test_alternatives_are_one_span_item_named_by_their_first_span() -> None:
    # spans 0 and 2 are alternatives (group 1), span 1 stands alone, 3 and 4 are group 7
    assert span_items([1, None, 1, 7, 7]) == (0, 1, 0, 3, 3)
    assert span_items([None, None]) == (0, 1)
    q = Evidence("q-1", (), (0, 1, 0, 3, 3))
    assert span_qrels([q]) == ["q-1 0 q-1#0 1", "q-1 0 q-1#1 1", "q-1 0 q-1#3 1"]


def test_a_group_is_found_at_the_rank_of_whichever_copy_comes_first() -> None:
    text = "Refunds take 5 days. " * 2
    spans = (Span.from_text(text, "a.md", 0, 20), Span.from_text(text, "b.md", 0, 20),
             Span.from_text(text, "a.md", 21, 41))  # fmt: skip
    q = Evidence("q-1", spans, span_items([1, 1, None]))
    ranked = [RankedEntry("c1", "a.md", 30, 60, 0.9), RankedEntry("c2", "b.md", 0, 25, 0.8),
              RankedEntry("c3", "a.md", 0, 41, 0.7)]  # fmt: skip
    assert _first_ranks(ranked, q, 0.8) == {0: 2, 2: 3}  # b.md's copy at 2; a.md's at 3 too

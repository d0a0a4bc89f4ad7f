"""Alternatives in a run (§18): run.json's evidence carries each span's group, only when it has
one (older runs read as before), and the TREC span files count a group as one item."""

from __future__ import annotations

from evaluator.runs.model_json import Reader
from evaluator.runs.model_queries import EvidenceRef, QueryResult
from evaluator.runs.trec import Evidence, span_items, span_qrels
from evaluator.runs.trec_spans import group_ranks, placed


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
    # spans 0 and 1 are alternatives (group 1): run.json has them first matched at 3 and 2
    result = QueryResult((), {"first_match_rank": (3, 2, None)}, None, None, (None, None, None))
    assert group_ranks(result, span_items([1, 1, None])) == {0: 2, 2: None}
    # two groups one unit first matches at rank 5, k = 5: the second takes rank 4
    assert placed({0: 5, 2: 5, 3: 3}, 5) == {3: 3, 0: 5, 2: 4}

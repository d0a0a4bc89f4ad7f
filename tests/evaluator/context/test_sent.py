"""What is sent for a ranking (§18): windows merge where they touch, parents go once, and
every measure (ranks, coverage, prompt tokens) is taken on what is sent."""

from __future__ import annotations

import pytest

from evaluator.chunk import Chunk
from evaluator.metrics import MEASURES, ChunkIndex, MetricSettings, QueryView, TokenCounter
from evaluator.metrics.sent import Sending
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query, Span

TEXT = "".join(chr(ord("a") + i % 26) for i in range(50))
TEXTS = {"d": TEXT}
CHILDREN = [Chunk(f"c{i}", "d", s, e) for i, (s, e) in
            enumerate([(0, 10), (8, 20), (18, 30), (28, 40), (38, 50)])]  # fmt: skip


def window(i: int, n: int = 1) -> Chunk:
    lo, hi = max(0, i - n), min(4, i + n)
    return Chunk(f"w{lo}-{hi}", "d", CHILDREN[lo].start, CHILDREN[hi].end)


WINDOWS = Sending({c.id: window(i) for i, c in enumerate(CHILDREN)}, merge=True)
P0, P1 = Chunk("p0", "d", 0, 25), Chunk("p1", "d", 25, 50)
PARENTS = Sending({"c0": P0, "c1": P0, "c2": P0, "c3": P1, "c4": P1}, merge=False)


def ranked(*ids: int) -> list[Ranked]:
    return [Ranked(CHILDREN[i], 1.0 - n / 10) for n, i in enumerate(ids)]


def places(chunks: object) -> list[tuple[int, int]]:
    assert isinstance(chunks, list | tuple)
    return [(c.start, c.end) for c in (x.chunk if isinstance(x, Ranked) else x for x in chunks)]


def test_a_window_is_its_neighbours_and_windows_merge_where_they_touch() -> None:
    # c4's window is 28..50, c0's 0..20 (apart), c2's 8..40 joins both into 0..50
    assert places(WINDOWS.ranking(ranked(4, 0, 2))) == [(28, 50), (0, 20), (0, 50)]
    assert places(WINDOWS.sent(ranked(4, 0, 2), 2)) == [(28, 50), (0, 20)]
    assert places(WINDOWS.sent(ranked(4, 0, 2), 3)) == [(0, 50)]


def test_touching_windows_merge_and_the_merge_keeps_the_first_place() -> None:
    # c0's window 0..20 and c3's 18..50 overlap; c0 ranked first, so the merge is first
    sent = WINDOWS.sent(ranked(0, 3), 2)
    assert places(sent) == [(0, 50)]
    assert sent[0].id != "w0-1"  # a merged range has its own id


@pytest.mark.parametrize("sending", [WINDOWS, PARENTS])
def test_what_is_sent_for_each_n_is_found_in_one_walk(sending: Sending) -> None:
    ranks = ranked(4, 0, 2, 3, 1)
    found = list(sending.prefixes(ranks))
    assert found == [sending.sent(ranks, n) for n in range(6)]
    assert places(found[3]) == ([(0, 50)] if sending is WINDOWS else [(25, 50), (0, 25)])


def test_a_parent_shared_by_two_retrieved_children_is_sent_once() -> None:
    assert places(PARENTS.ranking(ranked(1, 0, 4))) == [(0, 25), (0, 25), (25, 50)]
    assert places(PARENTS.sent(ranked(1, 0, 4), 2)) == [(0, 25)]
    assert places(PARENTS.sent(ranked(1, 0, 4), 3)) == [(0, 25), (25, 50)]
    assert sorted(c.id for c in PARENTS.sendable()) == ["p0", "p1"]


def view(sending: Sending | None, ranks: list[Ranked], index: list[Chunk]) -> QueryView:
    query = Query("q", "x", evidence=(Span.from_text(TEXT, "d", 12, 24),))
    settings = MetricSettings(k=2, depth=5)
    return QueryView(query, ranks, ChunkIndex.build(index), settings,
                     TokenCounter(len, TEXTS), sending)  # fmt: skip


def values(v: QueryView) -> dict[str, object]:
    return {m.name: m.value(v) for m in MEASURES}


def test_measures_count_what_is_sent_not_the_retrieved_chunks() -> None:
    # span 12..24 crosses c1 (8..20) and c2 (18..30): no child holds it, parent p0 does
    alone = values(view(None, ranked(1, 4), CHILDREN))
    assert alone["hit@k"] is False and alone["prompt_tokens@k"] == 12 + 12
    sent = values(view(PARENTS, ranked(1, 4), PARENTS.sendable()))
    assert sent["hit@k"] is True
    assert sent["first_match_rank"] == (1,)
    assert sent["prompt_tokens@k"] == 25 + 25  # p0 and p1, each counted once
    assert sent["oracle_recall"] == 1.0
    v = view(PARENTS, ranked(1, 4, 0), PARENTS.sendable())
    assert [c.id for c in v.sent_at(1)] == ["p0"]
    assert [c.id for c in v.sent_at(3)] == ["p0", "p1"]  # c0's parent is p0, sent already


def test_a_parent_sent_twice_counts_its_tokens_once() -> None:
    sent = values(view(PARENTS, ranked(1, 0), PARENTS.sendable()))
    assert sent["prompt_tokens@k"] == 25
    assert sent["duplicate_pairs@k"] == 0


def test_a_span_held_only_by_a_merged_window_is_matched_where_the_merge_happens() -> None:
    # span 25..45, matched only whole: c4's window 28..50 misses 25..28, c1's 0..30 misses
    # 30..45; the two overlap, so the top 2 send 0..50, which holds it, from rank 2
    query = Query("q", "x", evidence=(Span.from_text(TEXT, "d", 25, 45),))
    settings = MetricSettings(k=2, depth=5, coverage_threshold=1.0)
    v = QueryView(query, ranked(4, 1), ChunkIndex.build(WINDOWS.sendable()), settings,
                  TokenCounter(len, TEXTS), WINDOWS)  # fmt: skip
    assert places(v.ranked) == [(28, 50), (0, 50)]
    assert v.first_ranks == (2,)
    assert v.tokens.total(v.top) == 50


def test_merged_windows_still_count_k_ranks_and_a_budget_counts_what_is_sent() -> None:
    # the top 2 ranks merge into one unit (0..50), which holds 25..45 from rank 2: one unit
    # is sent, yet two ranks are within k (a merge does not shorten the ranking)
    query = Query("q", "x", evidence=(Span.from_text(TEXT, "d", 25, 45),))
    at_k = MetricSettings(k=2, depth=5, coverage_threshold=1.0)
    v = QueryView(query, ranked(4, 1), ChunkIndex.build(WINDOWS.sendable()), at_k,
                  TokenCounter(len, TEXTS), WINDOWS)  # fmt: skip
    assert len(v.top) == 1 and v.cut == 2
    assert v.matched_in_k == (True,) and values(v)["hit@k"] is True
    # at 30 tokens: rank 1 sends 28..50 (22) and fits; rank 2 makes it 0..50 (50), which not
    at_budget = MetricSettings(k=2, depth=5, coverage_threshold=1.0, budget=30)
    b = QueryView(query, ranked(4, 1), ChunkIndex.build(WINDOWS.sendable()), at_budget,
                  TokenCounter(len, TEXTS), WINDOWS)  # fmt: skip
    assert b.cut == 1 and places(b.top) == [(28, 50)]
    assert b.matched_in_k == (False,) and values(b)["hit@k"] is False

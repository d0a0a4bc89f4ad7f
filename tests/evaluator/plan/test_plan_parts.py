"""The plan's parts, with figures worked out by hand: holds, the anchor, ceilings, the
budget, the probe of the cache, and the `no signal` cause."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator.chunk import Chunk
from evaluator.chunking.spec import SplitterSpec
from evaluator.chunking.units import Units
from evaluator.embedding import CachedEmbedder, EmbeddingCache
from evaluator.embedding.probe import CacheProbe
from evaluator.metrics.causes import DEPTH_ORDER, Cause, span_cause
from evaluator.metrics.context_budget import default_budget
from evaluator.metrics.index import ChunkIndex, TokenCounter
from evaluator.metrics.settings import MetricSettings
from evaluator.plan.anchor import anchor_range
from evaluator.plan.ceiling import ceiling, ceiling_at_budget
from evaluator.plan.holds import boundaries, hold
from labeler.core.values import Query, Span
from tests.evaluator.embedding.test_cache import LetterCounts
from tests.evaluator.plan.seeds import SHIPPING

CHARS80 = SplitterSpec("chars", 80, 0)


def test_a_range_longer_than_the_window_no_overlap_can_hold() -> None:
    found = hold(CHARS80, Units(502), 502, 89, 186, 1.0)
    assert (found.length, found.overlap) == (97, None)
    assert found.words.startswith("overlap 0 cannot hold it: longer than the window (97 > 80")


def test_the_least_overlap_holds_at_every_larger_one() -> None:
    # [70, 90) at size 80: windows start at multiples of 80 - o; one in [10, 70] holds it
    # whole (threshold 1.0), which a step of at most 70 gives: overlap ≥ 10.
    found = hold(CHARS80, Units(502), 502, 70, 90, 1.0)
    assert found.overlap == 10
    assert found.words == (
        "overlap 0 cannot hold it: overlap ≥ 10 at this size (80 chars) holds it where it sits"
    )


def test_other_splitters_get_their_length_against_the_size() -> None:
    spec = SplitterSpec("recursive", 80, 0)
    assert hold(spec, Units(502), 502, 70, 90, 0.8).words == (
        "fits one chunk (20 of 80 chars), but a boundary falls inside it: a split at its "
        "edges, or overlap, would hold it"
    )


def test_boundaries_show_the_characters_either_side_through_the_display_rule() -> None:
    text = "Refunds\x1b[2J take 14 days."
    found = boundaries([Chunk("a", "d", 0, 1), Chunk("b", "d", 1, 30)], 0, 20, text)
    assert [(b.offset, b.before, b.after) for b in found] == [(1, "R", "efunds\\x1b[")]
    assert found[0].said == '"R|efunds\\x1b[" at 1'


def test_the_anchor_is_the_questions_phrase_nearest_the_evidence() -> None:
    start = SHIPPING.index("9 dollars")
    where = anchor_range("How much does customs clearance cost?", SHIPPING, start, start + 9)
    assert where == (89, 106)
    assert SHIPPING[89:106] == "Customs clearance"


def test_an_ascii_text_is_searched_for_the_questions_words_as_any_other_is_listed() -> None:
    # An ASCII text takes the search for the question's words alone; one non-ASCII letter
    # at the end sends the same text through the listing of every word: the same anchor.
    start = SHIPPING.index("9 dollars")
    question = "How much does CUSTOMS clearance cost, café?"
    assert SHIPPING.isascii()
    ascii_found = anchor_range(question, SHIPPING, start, start + 9)
    assert ascii_found == anchor_range(question, SHIPPING + " é", start, start + 9) == (89, 106)
    assert anchor_range(question, SHIPPING.replace("Customs", "Customsx"), start, start + 9) is None


def test_one_common_word_is_no_anchor() -> None:
    start = SHIPPING.index("three to five")
    assert anchor_range("Is delivery quick?", SHIPPING, start, start + 13) is None


def _span(doc: str, text: str, quote: str) -> Span:
    start = text.index(quote)
    return Span.from_text(text, doc, start, start + len(quote))


def test_the_ceiling_at_k_counts_what_k_chunks_can_hold() -> None:
    text = "alpha beta gamma delta"
    q = Query("q", "x", evidence=(_span("d", text, "alpha"), _span("d", text, "delta")))
    index = ChunkIndex.build([Chunk("1", "d", 0, 11), Chunk("2", "d", 11, 22)])
    counter = TokenCounter(len, {"d": text})
    at_1 = ceiling([q], index, MetricSettings(k=1), counter, 1)
    at_all = ceiling([q], index, MetricSettings(k=1), counter, None)
    assert (at_1.recall, at_1.hit) == (0.5, 0.0)
    assert (at_all.recall, at_all.hit) == (1.0, 1.0)
    assert ceiling([q], index, MetricSettings(k=1), counter, 0).recall == 0.0


def test_the_default_budget_rounds_k_times_the_mean_up_the_one_way_every_view_does() -> None:
    assert default_budget(5, 121.48) == 608  # 607.4: eval once said 607, plan 608
    assert default_budget(5, 120.5) == 603
    assert default_budget(5, 120.0) == 600  # a whole product stays whole
    assert default_budget(5, None) == 1


def test_the_ceiling_at_budget_fills_by_the_verdicts_rule() -> None:
    # two chunks of 11 tokens (a character a token), a span in each: 21 tokens hold one
    # chunk (the second would cross the budget and is left out), 22 both, 10 none.
    text = "alpha beta gamma delta ep"
    q = Query("q", "x", evidence=(_span("d", text, "alpha"), _span("d", text, "delta")))
    index = ChunkIndex.build([Chunk("1", "d", 0, 11), Chunk("2", "d", 11, 22)])
    counter = TokenCounter(len, {"d": text})
    found = {b: ceiling_at_budget([q], index, MetricSettings(k=1), counter, b)
             for b in (10, 21, 22)}  # fmt: skip
    assert [(f.recall, f.hit, f.budget) for f in found.values()] == [
        (0.0, 0.0, 10), (0.5, 0.0, 21), (1.0, 1.0, 22)]  # fmt: skip


def test_the_probe_reads_what_the_cache_measured_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.db"
    assert CacheProbe(path).cached("letters-v1", ["abc"]) == 0
    assert not path.exists()
    with EmbeddingCache(path) as cache:
        CachedEmbedder(LetterCounts(), cache).embed(["abc", "bcd"])
    before = sorted(os.listdir(tmp_path))
    probe = CacheProbe(path)
    assert probe.cached("letters-v1", ["abc", "abc", "zzz"]) == 1
    assert probe.cached("another-model", ["abc"]) == 0
    rate = probe.texts_per_second("letters-v1")
    assert rate is not None and rate > 0
    probe.close()
    assert sorted(os.listdir(tmp_path)) == before


def test_no_signal_replaces_crowded_and_disappeared_only() -> None:
    def cause(rank: int | None, cover: float, held: bool, signal: bool = False) -> Cause | None:
        return span_cause(rank, cover, held, k=1, threshold=0.8, signal=signal)

    assert cause(2, 0.0, True) is Cause.NO_SIGNAL
    assert cause(None, 0.0, True) is Cause.NO_SIGNAL
    assert cause(None, 0.0, False) is Cause.CUT
    assert cause(2, 0.9, True) is Cause.SPLIT
    assert cause(2, 0.0, True, signal=True) is Cause.CROWDED
    assert DEPTH_ORDER.index(Cause.NO_SIGNAL) < DEPTH_ORDER.index(Cause.CROWDED)


@pytest.mark.parametrize("scores", [(0.0, 0.0), (0.2, 0.1)])
def test_the_view_has_signal_unless_every_top_k_score_is_zero(
    scores: tuple[float, float],
) -> None:
    from evaluator.metrics.view import QueryView
    from evaluator.retrieval.base import Ranked

    text = "aaaa bbbb"
    q = Query("q", "x", evidence=(_span("d", text, "bbbb"),))
    chunks = [Chunk("1", "d", 0, 5), Chunk("2", "d", 5, 9)]
    ranked = [Ranked(c, s) for c, s in zip(chunks, scores, strict=True)]
    view = QueryView(q, ranked, ChunkIndex.build(chunks), MetricSettings(k=1, depth=2),
                     TokenCounter(len, {"d": text}))  # fmt: skip
    want = Cause.NO_SIGNAL if scores == (0.0, 0.0) else Cause.CROWDED
    assert view.span_causes == (want,)

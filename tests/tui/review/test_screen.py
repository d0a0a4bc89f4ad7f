"""Pilot tests: a person confirms, adjusts, orphans, skips and undoes; the store follows.

Every test drives the screen with keys on the demo swapped to corpus v2 and then asserts
on the store: the span's offsets, the decision rows, and the binding.
"""

from __future__ import annotations

from labeler.core.anchoring import review
from labeler.core.labels import labelset
from labeler.tui.app import SpanlabApp
from labeler.tui.review.widgets import CandidateList, ConfirmOrphan, SpanList
from tests.tui.review.conftest import Demo
from tests.tui.review.helpers import go_to, screen_of, settle


def app_for(demo: Demo) -> SpanlabApp:
    return SpanlabApp(demo.store, demo.new, annotator="pilot", screen="review")


async def test_the_screen_lists_every_waiting_span_and_proposes_for_the_first(demo: Demo) -> None:
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        assert len(screen.items) == 32
        assert screen.query_one(SpanList).row_count == 32
        assert screen.current is not None
        assert (screen.current.query_id, screen.current.span.start) == ("q-0046", 263)
        assert screen.chosen == (489, 573)
        assert screen.query_one(CandidateList).option_count == 1
    assert review.decisions(demo.store) == []


async def test_enter_accepts_the_highlighted_candidate_and_moves_on(demo: Demo) -> None:
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        sid = screen_of(pilot).items[0].span_id
        await pilot.press("enter")
        await settle(pilot)
        screen = screen_of(pilot)
        assert len(screen.items) == 31
        assert screen.current is not None
        assert (screen.current.query_id, screen.current.span.start) == ("q-0046", 567)
    span = demo.store.span(sid)[1]
    assert (span.start, span.end) == (489, 573)
    (d,) = review.decisions(demo.store)
    assert (d.kind, d.span_id, d.annotator, d.new_start, d.new_end) == (
        "accept",
        sid,
        "pilot",
        489,
        573,
    )


async def test_the_person_picks_the_second_occurrence_of_a_repeated_clause(demo: Demo) -> None:
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await go_to(pilot, "q-0058", 2414)
        screen = screen_of(pilot)
        sid = screen.items[screen.query_one(SpanList).highlighted or 0].span_id
        assert screen.query_one(CandidateList).option_count == 2
        assert screen.chosen == (2633, 2739)
        await pilot.press("2")
        assert screen.chosen == (760, 866)
        await pilot.press("1", "a")
        await settle(pilot)
    span = demo.store.span(sid)[1]
    assert (span.start, span.end) == demo.expected_for("q-0058", 2414)[0] == (2633, 2739)


async def test_edges_adjusted_by_a_word_are_previewed_then_saved(demo: Demo) -> None:
    text = demo.new.text("policies/shipping.md")
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await go_to(pilot, "q-0053", 1768)
        screen = screen_of(pilot)
        sid = screen.current.span_id if screen.current else 0
        assert screen.chosen == (1768, 1858)
        assert text[1768:1858].startswith("A signature on delivery")
        await pilot.press("right_square_bracket")
        assert screen.chosen == (1770, 1858)
        await pilot.press("right_curly_bracket")
        assert screen.chosen == (1770, 1861)
        await pilot.press("left_curly_bracket")
        assert screen.chosen == (1770, 1858)
        await pilot.press("left_curly_bracket")
        assert screen.chosen == (1770, 1852)
        await pilot.press("enter")
        await settle(pilot)
    span = demo.store.span(sid)[1]
    assert (span.start, span.end) == (1770, 1852)
    assert span.quote == (
        "signature on delivery is required for every order with a total value above $500 or"
    )


async def test_orphan_asks_first_and_n_keeps_the_span(demo: Demo) -> None:
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await go_to(pilot, "q-0052", 1141)
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmOrphan)
        await pilot.press("enter")  # a stray enter lands on "Keep it"
        await pilot.pause()
        assert len(screen_of(pilot).items) == 32
        await pilot.press("o")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert len(screen_of(pilot).items) == 32
    assert review.decisions(demo.store) == []
    assert demo.store.count("spans") == 108


async def test_orphan_confirmed_deletes_the_span_and_undo_brings_it_back(demo: Demo) -> None:
    before = demo.store.spans()
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await go_to(pilot, "q-0052", 1141)
        await pilot.press("o", "y")
        await settle(pilot)
        assert len(screen_of(pilot).items) == 31
        assert demo.store.count("spans") == 107
        assert [d.kind for d in review.decisions(demo.store)] == ["orphan"]
        await pilot.press("ctrl+z")
        await settle(pilot)
        screen = screen_of(pilot)
        assert len(screen.items) == 32
        assert screen.current is not None
        assert (screen.current.query_id, screen.current.span.start) == ("q-0052", 1141)
    assert demo.store.spans() == before
    assert [d.kind for d in review.decisions(demo.store)] == ["orphan", "undo"]


async def test_skip_moves_on_and_writes_nothing(demo: Demo) -> None:
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s", "s")
        await settle(pilot)
        screen = screen_of(pilot)
        assert screen.query_one(SpanList).highlighted == 2
        assert len(screen.items) == 32
    assert review.decisions(demo.store) == []


async def test_resolving_every_span_by_keys_rebinds_the_store(demo: Demo) -> None:
    async with app_for(demo).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = screen_of(pilot)
        while screen.items:
            item = screen.current
            assert item is not None
            want = demo.expected_for(item.query_id, item.span.start)
            assert screen.chosen == (want[0] if want else None)
            await pilot.press(*(["enter"] if want else ["o", "y"]))
            await settle(pilot)
        assert screen.query_one(SpanList).row_count == 0
    assert demo.store.corpus_hash == demo.expected["new_corpus_hash"]
    assert review.summary(demo.store, demo.new).waiting == 0
    assert len(review.decisions(demo.store)) == 32
    exported = labelset.export(demo.store, demo.new)
    assert exported["corpus"]["hash"] == demo.expected["new_corpus_hash"]

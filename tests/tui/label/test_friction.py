"""Pilot tests for the annotator's friction points (issue 15): span n of m, trimming,
resume, the pattern and slice keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span
from labeler.tui.app import SpanlabApp
from labeler.tui.label.panels import CursorBar
from labeler.tui.label.resume import Resume
from labeler.tui.label.screen import LabelScreen
from labeler.tui.prefs import Place, save_place, save_theme, saved_place, saved_theme
from tests.tui.conftest import BILLING, QUIET


def screen(app: SpanlabApp) -> LabelScreen:
    assert isinstance(app.screen, LabelScreen)
    return app.screen


def bar(app: SpanlabApp) -> str:
    return str(app.screen.query_one(CursorBar).content)


async def test_adjacent_spans_are_told_apart_by_number(app: SpanlabApp, store: Store) -> None:
    for start, end in ((0, 23), (24, 59)):  # two sentences side by side
        store.add_span("q-0001", Span.from_text(BILLING, "billing.md", start, end), BILLING,
                       annotator="ann")  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert "span 1/2" in bar(app)
        await pilot.press("n")
        assert screen(app).view.cursor == 24
        assert "span 2/2" in bar(app)
        screen(app).view.go_to(80)  # the shipping sentence: no span of q-0001
        await pilot.pause()
        assert bar(app).startswith("billing.md @80/") and "span" not in bar(app)


async def test_a_selection_over_a_line_end_is_stored_without_it(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen(app).view.go_to(24)
        await pilot.pause()
        await pilot.press(*["shift+right"] * 37, "a")  # 24..61: "Cards … days.\nS"
        (span,) = store.query("q-0001").evidence
        assert (span.start, span.end) == (24, 61)
        store.delete_span(span.id or 0, annotator="ann")
        screen(app).view.go_to(23)
        await pilot.pause()
        await pilot.press(*["shift+right"] * 38, "a")  # 23..61 less the leading space
        (span,) = store.query("q-0001").evidence
        assert span.start == 24 and not span.quote[0].isspace()


async def test_reopens_where_the_annotator_left_off(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    prefs = tmp_path / "config" / "app.json"
    first = SpanlabApp(store, corpus, annotator="ann", settings=QUIET, prefs=prefs)
    async with first.run_test(size=(80, 24)) as pilot:
        await pilot.press("down")  # q-0002
        await pilot.press("enter", *["right"] * 5)
        await pilot.pause()
        assert (screen(first).current, screen(first).view.cursor) == ("q-0002", 65)
    bobs = SpanlabApp(store, corpus, annotator="bob", settings=QUIET, prefs=prefs)
    async with bobs.run_test(size=(80, 24)):
        assert screen(bobs).current == "q-0001"  # bob has no place of his own yet
    again = SpanlabApp(store, corpus, annotator="ann", settings=QUIET, prefs=prefs)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        s = screen(again)
        assert (s.current, s.view.doc_id, s.view.cursor) == ("q-0002", "billing.md", 65)


@pytest.mark.parametrize(
    "content",
    ["", "not json", "[]", '{"places": []}', '{"places": {"x": 1}}', '{"theme": 3}'],
)
def test_an_unreadable_place_is_ignored(tmp_path: Path, content: str) -> None:
    path = tmp_path / "app.json"
    path.write_text(content, encoding="utf-8")
    assert saved_place(path, "x") is None
    save_place(path, "x", Place("q-0001", "a.md", 3))
    assert saved_place(path, "x") == Place("q-0001", "a.md", 3)


def test_a_place_whose_query_was_deleted_is_not_resumed(store: Store, tmp_path: Path) -> None:
    resume = Resume(tmp_path / "app.json", store.path, "ann")
    resume.keep("q-0003", "gifts.txt", 4)
    assert resume.place(store) == Place("q-0003", "gifts.txt", 4)
    store.delete_query("q-0003", annotator="ann")
    assert resume.place(store) is None
    assert Resume(tmp_path / "app.json", ":memory:", "ann").place(store) is None


def test_the_theme_and_places_share_the_file(tmp_path: Path) -> None:
    path = tmp_path / "app.json"
    save_place(path, "k", Place("q-0001", None, 0))
    save_theme(path, "spanlab-light")
    assert saved_place(path, "k") == Place("q-0001", None, 0)
    assert saved_theme(path) == "spanlab-light"

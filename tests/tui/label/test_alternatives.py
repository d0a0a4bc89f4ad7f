"""`+` adds the selection as an alternative of the span last visited (§18): both copies of
a fact in one group, the query panel saying "any of", the cursor bar naming the group."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.style import Style

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label.panels import query_meta
from labeler.tui.label.screen import LabelScreen
from tests.tui.conftest import QUIET, record_notes

FACT = "Refunds are paid within 14 days."
TEXTS = {"x.md": f"Intro.\n{FACT}\n", "y.md": f"Other words.\n{FACT}\nEnd.\n"}


def project(tmp_path: Path) -> tuple[Store, Corpus]:
    corpus = Corpus.from_texts(TEXTS)
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    store.add_query("When are refunds paid?", annotator="ann", status=Status.LABELLED)
    start = TEXTS["x.md"].index(FACT)
    span = Span.from_text(TEXTS["x.md"], "x.md", start, start + len(FACT))
    store.add_span("q-0001", span, TEXTS["x.md"], annotator="ann")
    return store, corpus


async def test_plus_adds_the_selection_as_an_alternative(tmp_path: Path) -> None:
    store, corpus = project(tmp_path)
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(100, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        screen.open_document("x.md")
        screen.view.go_to(10)  # inside the x.md copy: the span visited
        await pilot.pause()
        screen.open_document("y.md")
        start = TEXTS["y.md"].index(FACT)
        screen.view.select(start, start + len(FACT))
        await pilot.press("plus")
        await pilot.pause()
        evidence = store.query("q-0001").evidence
        assert [(s.doc, s.group) for s in evidence] == [("x.md", 1), ("y.md", 1)]
        assert "2 spans · any of 2" in query_meta(store.query("q-0001"), "ann").plain
        screen.view.go_to(start + 2)
        await pilot.pause()
        bar = screen.query_one("CursorBar")
        assert str(bar.render()).startswith("span 2/2 any-of 1 · y.md @")
    store.close()


async def test_a_selection_that_is_not_a_copy_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, corpus = project(tmp_path)
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(100, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        screen.open_document("x.md")
        screen.view.go_to(10)
        await pilot.pause()
        screen.open_document("y.md")
        screen.view.select(0, 5)
        await pilot.press("plus")
        assert notes == [
            "q-0001: y.md 0..5 quotes 'Other', not what its group 1 quotes (x.md 7..39: "
            "'Refunds are paid within 14 days.'); not an alternative"
        ]
        assert [s.group for s in store.query("q-0001").evidence] == [None]
    store.close()


def alternative_project(tmp_path: Path) -> tuple[Store, Corpus]:
    """x.md's copy and y.md's copy in group 1, and "Intro." as a span of its own."""
    store, corpus = project(tmp_path)
    x, y = TEXTS["x.md"], TEXTS["y.md"]
    (first,) = store.query("q-0001").evidence
    copy = Span.from_text(y, "y.md", y.index(FACT), y.index(FACT) + len(FACT))
    store.add_alternative(first.id or 0, copy, y, annotator="ann")
    store.add_span("q-0001", Span.from_text(x, "x.md", 0, 6), x, annotator="ann")
    return store, corpus


def styles_on_row(screen: LabelScreen, y: int) -> dict[str, Style]:
    return {seg.text: seg.style or Style() for seg in screen.view.render_line(y)}


@pytest.mark.parametrize("theme", ["dark", "light", "high-contrast"])
async def test_alternatives_are_drawn_as_such_in_every_theme(tmp_path: Path, theme: str) -> None:
    """Both copies double-underlined on the theme's $span-alternative; the span of its own
    stays bold on $span-current with no double underline: not told apart by shade alone."""
    store, corpus = alternative_project(tmp_path)
    app = SpanlabApp(store, corpus, annotator="ann", theme=theme, settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        colours = app.theme_variables
        for doc in ("y.md", "x.md"):
            screen.open_document(doc)
            screen.view.go_to(len(TEXTS[doc]))  # the cursor off the spans
            await pilot.pause()
            copy = styles_on_row(screen, 1)[FACT]
            assert copy.underline2 and copy.bold, doc
            assert copy.bgcolor and copy.bgcolor.triplet
            assert copy.bgcolor.triplet.hex == colours["span-alternative"]
        own = styles_on_row(screen, 0)["Intro."]  # x.md's first row, shown last
        assert own.bold and not own.underline2
        assert own.bgcolor and own.bgcolor.triplet
        assert own.bgcolor.triplet.hex == colours["span-current"]
    store.close()


async def test_the_cursor_bar_keeps_a_long_path_at_80_columns(tmp_path: Path) -> None:
    """The demo's q-0075, span 2/3 in policies/returns-process.md: whole at 120 columns; at
    80 the path is shortened, not dropped, and the offset stays whole."""
    doc = "policies/returns-process.md"
    corpus = Corpus.from_texts({"help/returns-faq.md": TEXTS["x.md"], doc: TEXTS["y.md"]})
    store = Store.open(tmp_path / "labels.db")
    store.bind(corpus.doc_hashes)
    store.add_query("When are refunds paid?", annotator="ann", status=Status.LABELLED)
    faq, process = (corpus.text(d) for d in ("help/returns-faq.md", doc))
    at = faq.index(FACT)
    fact = Span.from_text(faq, "help/returns-faq.md", at, at + len(FACT))
    first = store.add_span("q-0001", fact, faq, annotator="ann")
    at = process.index(FACT)
    copy = Span.from_text(process, doc, at, at + len(FACT))
    store.add_alternative(first.id or 0, copy, process, annotator="ann")
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(120, 24)) as pilot:
        await pilot.press("tab", "n")
        await pilot.pause()
        bar = app.screen.query_one("CursorBar")
        assert str(bar.render()) == "span 2/2 any-of 1 · policies/returns-process.md @13/51"
        await pilot.resize_terminal(80, 24)  # the bar fits itself again, nothing moved
        await pilot.pause()
        assert str(bar.render()) == "span 2/2 any-of 1 · returns-p…rocess.md @13/51"
    store.close()

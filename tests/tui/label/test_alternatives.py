"""`+` adds the selection as an alternative of the span last visited (§18): both copies of
a fact in one group, the query panel saying "any of", the cursor bar naming the group."""

from __future__ import annotations

from pathlib import Path

import pytest

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

"""The agreement screen: versions over the text, least agreement first, and decisions
that go to the store, a raced one refused (§11)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Label, OptionList

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store, Version
from labeler.core.values import Span
from labeler.tui.agreement.model import AgreementModel, Piece, overlay
from labeler.tui.agreement.screen import AgreementScreen
from labeler.tui.app import SpanlabApp
from tests.tui.conftest import BILLING, QUIET, record_notes


def test_overlay_marks_each_character_by_who_marked_it() -> None:
    text = "abcdefghij"
    assert overlay(text, [(2, 6)], [(4, 8)], context=1) == [
        Piece("b", "none"), Piece("cd", "first"), Piece("ef", "both"), Piece("gh", "second"),
        Piece("i", "none"),
    ]  # fmt: skip
    assert overlay(text, [], []) == []


def double(store: Store) -> None:
    """q-0001: ann marks the first sentence, bob the first two words; q-0003 agrees."""
    first = Span.from_text(BILLING, "billing.md", 0, 23)
    words = Span.from_text(BILLING, "billing.md", 0, 12)
    with store.write() as db:
        store.put_versions(
            [("q-0001", Version("ann", False, (first,))),
             ("q-0001", Version("bob", False, (words,))),
             ("q-0003", Version("ann", True, ())), ("q-0003", Version("bob", True, ()))],
            {"billing.md": BILLING}, db=db,
        )  # fmt: skip


def test_the_model_orders_by_disagreement(store: Store, corpus: Corpus) -> None:
    double(store)
    model = AgreementModel(store, corpus.text)
    model.load({d.id: len(d.text) for d in corpus})
    assert [(r.query_id, round(r.f1, 3)) for r in model.rows] == [
        ("q-0001", 0.686),
        ("q-0003", 1.0),
    ]
    [(doc, pieces)] = model.sides("q-0001")
    assert doc == "billing.md"
    assert [p.mark for p in pieces][:2] == ["both", "first"]
    assert model.describe("q-0003") == "ann: abstains, other · bob: abstains, other"


async def test_keep_from_the_label_screen(store: Store, corpus: Corpus) -> None:
    double(store)
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET)  # neither ann nor bob
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("R")
        assert isinstance(app.screen, AgreementScreen)
        assert app.screen.query_one(OptionList).option_count == 2
        await pilot.press("2")  # keep bob's version of q-0001
        assert [(s.start, s.end) for s in store.query("q-0001").evidence] == [(0, 12)]
        assert store.adjudications("q-0001")[0][:2] == ("keep", ["bob"])
        assert app.screen.query_one(OptionList).option_count == 1


async def test_a_raced_decision_is_refused(store: Store, corpus: Corpus, tmp_path: Path) -> None:
    """The screen still shows q-0001 (no poll in between): the decision is refused."""
    double(store)
    slow = replace(QUIET, poll_interval=600)  # else the row may vanish first (then no race)
    app = SpanlabApp(store, corpus, annotator="rita", settings=slow)  # not an author
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("R")
        rival = Store.open(tmp_path / "labels.db")
        seen = rival.query("q-0001").revision
        rival.adjudicate("q-0001", "keep", keep=["ann"], annotator="sam", seen=seen)
        await pilot.press("2")
        assert [(s.start, s.end) for s in store.query("q-0001").evidence] == [(0, 23)]
        notes = [n.message for n in app._notifications]
        assert any("changed since you looked by sam" in m for m in notes), notes


async def test_an_author_cannot_keep_a_version(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    double(store)  # ann holds a version of q-0001
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("R", "2")
        assert store.query("q-0001").evidence == () and store.adjudications("q-0001") == []
        assert any("ann labelled a version of it; someone else must" in n for n in notes)


async def test_send_back_with_a_note(app: SpanlabApp, store: Store) -> None:
    double(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("R", "b", *"too wide", "enter")
        assert "sent back by ann: too wide" in store.query("q-0001").notes


async def test_a_query_decided_elsewhere_leaves_nothing_chosen(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    """The shown query is decided by someone else and the list refreshes: the next key
    must not decide the query that moved under the highlight."""
    double(store)
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("R")
        assert isinstance(app.screen, AgreementScreen) and app.screen.current == "q-0001"
        rival = Store.open(tmp_path / "labels.db")
        seen = rival.query("q-0001").revision
        rival.adjudicate("q-0001", "keep", keep=["ann"], annotator="sam", seen=seen)
        for _ in range(10):  # the poll notices the commit and the list is read again
            await pilot.pause(0.05)
        title = app.screen.query_one("#agreement-title", Label)
        assert "q-0001 was decided by someone else" in str(title.render())
        await pilot.press("2")
        await pilot.pause()
        assert store.adjudications("q-0003") == []
        await pilot.press("down", "2")  # once the person picks a query, keys act again
        await pilot.pause()
        assert [a[:2] for a in store.adjudications("q-0003")] == [("keep", ["bob"])]


async def test_a_query_sent_back_does_not_keep_the_cursor(store: Store, corpus: Corpus) -> None:
    """q-0001 still waits after it is sent back; the cursor goes on to q-0003 instead of
    landing on the query just dealt with."""
    double(store)
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("R")
        assert isinstance(app.screen, AgreementScreen) and app.screen.current == "q-0001"
        await pilot.press("b", *"redo", "enter")
        await pilot.pause()
        assert store.waiting() == ["q-0001", "q-0003"]
        assert app.screen.current == "q-0003"
        assert app.screen.query_one(OptionList).highlighted == 1


async def test_p_takes_the_pattern_from_the_other_version(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    double(store)
    bob = Store.open(tmp_path / "labels.db")
    bob.view = "bob"
    bob.update_query("q-0001", annotator="bob", boundary="control")
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("R", "p", "p")  # the kept one's → ann's → bob's
        title = app.screen.query_one("#agreement-title", Label)
        assert "pattern from bob" in str(title.render())
        await pilot.press("1")  # ann's spans, bob's pattern
        await pilot.pause()
    done = store.query("q-0001")
    assert [(s.start, s.end) for s in done.evidence] == [(0, 23)]
    assert done.boundary == "control" and done.status == "reviewed"

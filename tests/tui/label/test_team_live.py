"""Two people on one store, live (§3, §15): a blind screen shows only its annotator's own
version; a query deleted or replaced under someone's cursor is explained, the selection is
dropped and their next key edits nothing; agreement stays closed to a blind annotator."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Label

from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.store import Store
from labeler.core.values import Boundary, Query, Span, Status
from labeler.tui.agreement.screen import AgreementScreen
from labeler.tui.app import SpanlabApp
from labeler.tui.label.panels import query_meta
from tests.tui.conftest import BILLING, QUIET, record_notes
from tests.tui.test_app import label_screen, until


def blind_app(store: Store, corpus: Corpus, who: str) -> SpanlabApp:
    store.view = who
    return SpanlabApp(store, corpus, annotator=who, settings=QUIET)


def panel(app: SpanlabApp) -> str:
    q = label_screen(app).state.current_query
    assert q is not None
    return query_meta(q, app.annotator).plain


def bob_marks_q1(tmp_path: Path) -> Store:
    """bob's own version of q-0001, one span of billing.md; his store handle."""
    bob = Store.open(tmp_path / "labels.db")
    bob.view = "bob"
    bob.add_span("q-0001", Span.from_text(BILLING, "billing.md", 0, 23), BILLING, annotator="bob")
    return bob


async def test_the_blind_screen_shows_and_edits_only_ones_own_version(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    bob = bob_marks_q1(tmp_path)
    bob.update_query("q-0001", annotator="bob", boundary=Boundary.CONTROL, status=Status.LABELLED)
    app = blind_app(store, corpus, "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        assert panel(app).startswith("q-0001 ○ draft · 0 spans · other")  # not bob's
        await pilot.press("A")
        assert "abstain" in panel(app) and store.query("q-0001").abstain
        await pilot.press("A")  # a second A clears it
        assert "abstain" not in panel(app) and not store.query("q-0001").abstain
        await pilot.press("p", "down", "enter")  # pattern picker: another pattern than other
        await pilot.pause()
        await pilot.press("A", "S")  # abstaining: S may label it (an empty draft stays one)
        assert panel(app).startswith("q-0001 ◐ labelled")
        await pilot.press("S")  # blind: labelled goes back to draft, never to reviewed
        assert panel(app).startswith("q-0001 ○ draft")
        mine = store.versions()["q-0001"]["ann"]
        assert mine.boundary is not None and mine.boundary != Boundary.OTHER
        assert mine.boundary.value in panel(app)
    theirs = bob.query("q-0001")
    assert (theirs.boundary, len(theirs.evidence), theirs.abstain) == (Boundary.CONTROL, 1, False)
    assert Store.open(tmp_path / "labels.db").query("q-0001").boundary == Boundary.OTHER


async def test_agreement_is_closed_to_a_blind_annotator_of_the_query(
    store: Store, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob_marks_q1(tmp_path)
    app = blind_app(store, corpus, "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("enter", "s", "a")  # ann's own version of q-0001: now it waits
        assert store.waiting() == ["q-0001"]
        await pilot.press("R")
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.mode_name == "label" and not isinstance(app.screen, AgreementScreen)
        assert any("annotated it blind" in n and "blind = true" in n for n in notes), notes
        assert any("holds your blind version" in n and "blind = true" in n for n in notes)


async def test_a_query_deleted_under_the_cursor_is_explained_and_keys_edit_nothing(
    app: SpanlabApp, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bob deletes q-0002 while ann has a selection in it: her app says so, drops the
    selection and makes no other query current, so her next `a` saves nothing anywhere."""
    bob = Store.open(tmp_path / "labels.db")
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        s = label_screen(app)
        await pilot.press("down", "enter", "s")
        assert s.current == "q-0002" and s.view.selection is not None
        bob.delete_query("q-0002", annotator="bob", seen=bob.query("q-0002"))
        await until(pilot, lambda: "q-0002" not in s.state.queries)
        assert any("q-0002 was deleted by bob at" in n for n in notes), notes
        assert s.current is None and s.view.selection is None
        assert s.query_list.highlighted is None
        await pilot.press("s", "a")
        await pilot.pause()
        assert [len(q.evidence) for q in store.queries()] == [0, 0]
        await pilot.press("shift+tab", "down")  # picking a query again makes keys act
        await pilot.pause()
        assert s.current is not None


async def test_an_import_replacing_the_query_on_screen_is_explained_and_undo_refused(
    app: SpanlabApp, store: Store, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lead = Store.open(tmp_path / "labels.db")
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        s = label_screen(app)
        await pilot.press("enter", "s", "a")  # ann: "Refunds take five days."
        assert len(store.query("q-0001").evidence) == 1
        said: list[str] = []
        replacement = Query("q-0001", "How long do refunds take?", status=Status.LABELLED)
        labelset.import_queries(lead, [replacement], corpus, annotator="lead",
                                replace_existing=True, removed=said)  # fmt: skip
        assert said == ["q-0001: replaced; removes 1 span(s) (1 of ann's), first billing.md 0..23"]
        await until(pilot, lambda: s.state.queries["q-0001"].spans == 0)
        assert any("lead's import removed 1 span(s) of ann" in n for n in notes), notes
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert store.query("q-0001").status == Status.LABELLED  # not put back to draft
        shown = app.screen.query_one("#conflict-message", Label).render()
        assert "was removed by lead's import (--replace)" in str(shown)
        kinds = [r[0] for r in store.conn.execute("SELECT kind FROM events ORDER BY id")]
        assert kinds[-1] == "query-replaced"


async def test_a_blind_delete_refused_offers_no_reapply(
    store: Store, corpus: Corpus, tmp_path: Path
) -> None:
    """trial of issue 19: bob's delete of a query holding alice's version was refused in a
    conflict dialog that offered `a: reapply mine over theirs`, which could never succeed."""
    alice = Store.open(tmp_path / "labels.db")
    alice.view = "alice"
    alice.add_span("q-0001", Span.from_text(BILLING, "billing.md", 0, 23), BILLING,
                   annotator="alice")  # fmt: skip
    app = blind_app(store, corpus, "bob")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("D", "y")
        await pilot.pause()
        hint = str(app.screen.query(Label).last().render())
        assert "holds alice's version" in str(app.screen.query_one("#conflict-message").render())
        assert "reload" in hint and "reapply" not in hint
        await pilot.press("a")  # nothing to reapply: the dialog stays
        assert app.screen.query("#conflict-message")
        await pilot.press("r")
        await pilot.pause()
        assert not app.screen.query("#conflict-message")
    assert "q-0001" in {q.id for q in alice.queries()}


async def test_a_later_annotator_of_a_decided_query_is_told_it_stays_decided(
    store: Store, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob_marks_q1(tmp_path)
    rita = Store.open(tmp_path / "labels.db")
    seen = rita.query("q-0001").revision
    rita.adjudicate("q-0001", "keep", keep=["bob"], annotator="rita", seen=seen)
    app = blind_app(store, corpus, "ann")
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("enter", "s", "a")  # ann's own version of the decided q-0001
        assert "ann" in store.versions()["q-0001"]
        told = [n for n in notes if n.startswith("q-0001 is decided (rita kept bob's version, ")]
        assert len(told) == 1 and told[0].endswith("does not reopen it; ask a lead to send it "
                                                   "back if it should"), notes  # fmt: skip
    assert store.waiting() == [] and store.standing() == {"q-0001"}

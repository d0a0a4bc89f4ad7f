"""Pilot: a save or an undo that another annotator's edit overtook shows who changed
what, and the annotator chooses to reload (keep theirs) or reapply (keep theirs no more)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Label

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span
from labeler.tui.app import SpanlabApp
from labeler.tui.label.conflict import ConflictScreen
from labeler.tui.label.screen import LabelScreen
from tests.tui.conftest import QUIET


def screen_current(app: SpanlabApp) -> str | None:
    assert isinstance(app.screen, LabelScreen)
    return app.screen.state.current


def message(app: SpanlabApp) -> str:
    assert isinstance(app.screen, ConflictScreen)
    return str(app.screen.query_one("#conflict-message", Label).render())


async def _save_notes_after_bob(app: SpanlabApp, bob: Store, choice: str) -> str:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")  # the form shows q-0001 as it is now
        bob.update_query("q-0001", annotator="bob", seen=bob.query("q-0001"), notes="bob's")
        await pilot.press(*["tab"] * 5, *"alice's", "enter")
        shown = message(app)
        await pilot.press(choice)
        assert not isinstance(app.screen, ConflictScreen)
        return shown


async def test_a_stale_save_is_shown_and_reload_keeps_theirs(
    app: SpanlabApp, store: Store, tmp_path: Path
) -> None:
    bob = Store.open(tmp_path / "labels.db")
    shown = await _save_notes_after_bob(app, bob, "r")
    assert "q-0001: notes was changed by bob at" in shown
    assert "you saw '', it is now \"bob's\"" in shown
    assert store.query("q-0001").notes == "bob's"


async def test_a_stale_save_reapplied_writes_mine(
    app: SpanlabApp, store: Store, tmp_path: Path
) -> None:
    bob = Store.open(tmp_path / "labels.db")
    await _save_notes_after_bob(app, bob, "a")
    assert store.query("q-0001").notes == "alice's"


async def test_an_undo_overtaken_by_bob_asks_first(
    app: SpanlabApp, store: Store, tmp_path: Path
) -> None:
    bob = Store.open(tmp_path / "labels.db")
    store.update_query("q-0001", annotator="ann", abstain=True)  # an empty draft stays one
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("S")  # q-0001 draft -> labelled
        bob.update_query("q-0001", annotator="bob", seen=bob.query("q-0001"), status="reviewed")
        await pilot.press("ctrl+z")
        assert "status was changed by bob" in message(app)
        await pilot.press("r")
        assert store.query("q-0001").status == "reviewed"
        await pilot.press("ctrl+z")  # the refused edit was dropped: nothing left but to say so
        assert store.query("q-0001").status == "reviewed"


async def test_a_nested_span_is_flagged_when_drawn(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "s", "a")  # 0..23, the first sentence
        await pilot.press(*["left"] * 15, *["shift+right"] * 4, "a")
        assert [(s.start, s.end) for s in store.query("q-0001").evidence] == [(0, 23), (8, 12)]
        notes = [n.message for n in app._notifications]
        assert any("nested in another span (0..23)" in m for m in notes), notes


async def test_next_unlabelled_is_one_key_away(app: SpanlabApp, store: Store) -> None:
    store.add_query("Where is my parcel?", annotator="ann")
    store.assign([("q-0001", "ann"), ("q-0003", "ann"), ("q-0004", "ann")], by="lead")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("U")
        assert screen_current(app) == "q-0004"  # q-0003 abstains: labelled already
        await pilot.press("U")
        assert screen_current(app) == "q-0001"  # wrapping round
        await pilot.press("enter", "s", "a", "U", "U")
        assert screen_current(app) == "q-0004"  # q-0001 has evidence now


async def test_blind_mode_shows_only_my_version(
    store: Store, tmp_path: Path, corpus: Corpus
) -> None:
    bob = Store.open(tmp_path / "labels.db")
    bob.view = "bob"
    text = corpus.text("billing.md")
    bob.add_span("q-0001", Span.from_text(text, "billing.md", 0, 23), text, annotator="bob")
    store.view = "ann"
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.screen.state.current_query.evidence == ()  # type: ignore[attr-defined]
        await pilot.press("enter", *["right"] * 24, "s", "a")
    mine = store.versions()["q-0001"]
    assert [(s.start, s.end) for s in mine["ann"].spans] == [(24, 59)]
    assert [(s.start, s.end) for s in mine["bob"].spans] == [(0, 23)]
    assert Store.open(tmp_path / "labels.db").query("q-0001").evidence == ()

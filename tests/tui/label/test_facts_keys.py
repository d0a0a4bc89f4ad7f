"""`F` labels the facts a complete answer states (§23): a selection becomes a fact at once;
without one, the dialog types facts, gives one an alternative and deletes; each is one
edit through the editor (undo, compare-and-set), and the query panel shows them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region

from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label.conflict import ConflictScreen
from labeler.tui.label.facts_screen import FactList, FactsDialog
from labeler.tui.label.panels import QueryPanel
from labeler.tui.label.screen import LabelScreen
from tests.tui.conftest import record_notes


def panel_text(app: SpanlabApp) -> str:
    """The query panel's rows as the terminal shows them."""
    panel = app.screen.query_one(QueryPanel)
    rows = panel.render_lines(Region(0, 0, *panel.outer_size))
    return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in rows)


async def test_f_on_a_selection_adds_it_as_a_fact_and_undo_takes_it_back(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        # Cursor to 13 ("five"), select "five days" (13..22), then F.
        await pilot.press("enter", *["right"] * 13, *["shift+right"] * 9, "F")
        assert store.query("q-0001").facts == (("five days",),)
        screen = app.screen
        assert isinstance(screen, LabelScreen) and screen.view.selection is None
        assert "facts: five days" in panel_text(app)
        await pilot.press("ctrl+z")
        assert store.query("q-0001").facts == ()
        await pilot.press("ctrl+y")
        assert store.query("q-0001").facts == (("five days",),)


async def test_the_dialog_types_a_fact_an_alternative_and_deletes_in_one_edit(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("F")
        assert isinstance(app.screen, FactsDialog)
        await pilot.press(*"five days", "enter", *"refund", "enter")
        await pilot.press("up")  # from the line to the list, on its last phrasing
        assert isinstance(app.focused, FactList)
        await pilot.press("home", "a", *"5 days", "enter")  # another phrasing of fact 1
        await pilot.press("up", "end", "x")  # the last listed: refund
        await pilot.press("ctrl+s")
        assert store.query("q-0001").facts == (("five days", "5 days"),)
        assert "facts: five days (+1)" in panel_text(app)
        await pilot.press("ctrl+z")  # the whole dialog was one edit
        assert store.query("q-0001").facts == ()


async def test_a_bad_phrase_is_refused_in_the_dialog_and_escape_saves_nothing(
    app: SpanlabApp, store: Store
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("F", *"refund", "enter", *"Refund", "enter")
        assert "repeats a phrasing" in str(app.screen.query_one("#error").render())
        await pilot.press("escape")
        assert not isinstance(app.screen, FactsDialog)
        assert store.query("q-0001").facts == ()


async def test_an_abstention_query_takes_no_fact(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = record_notes(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("J", "J")  # q-0003 abstains
        await pilot.press("F", *"interest", "enter", "enter")
        assert store.query("q-0003").facts == ()
        assert any("abstention query but has facts" in n for n in notes)


async def test_facts_changed_meanwhile_give_the_conflict_dialog(
    app: SpanlabApp, store: Store, tmp_path: Path
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("F", *"five days", "enter")
        bob = Store.open(tmp_path / "labels.db")
        bob.update_query("q-0001", annotator="bob", facts=(("refunds",),))
        bob.close()
        await pilot.press("enter")
        assert isinstance(app.screen, ConflictScreen)
        assert store.query("q-0001").facts == (("refunds",),)

"""`S` never labels a query that has neither evidence nor abstention (issue 45, item 1):
it refuses and says what is missing; only `L`, which asks once, labels it empty."""

from __future__ import annotations

import pytest

from labeler.core.store import Store
from labeler.core.values import Status
from labeler.tui.app import SpanlabApp
from labeler.tui.screens.dialogs import ConfirmScreen
from tests.tui.conftest import record_notes


async def test_s_on_an_empty_draft_refuses_and_says_what_is_missing(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("S")
        assert store.query("q-0001").status is Status.DRAFT
        await pilot.press("B")  # draft round to reviewed: refused the same way
        assert store.query("q-0001").status is Status.DRAFT
    assert len(notes) == 2
    assert notes[0].startswith("q-0001 has no evidence and does not abstain: draw a span")
    assert "mark it abstaining (A)" in notes[0] and "L (asks first)" in notes[0]


async def test_s_labels_once_the_draft_abstains(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("A", "S")
    assert store.query("q-0001").status is Status.LABELLED


async def test_l_asks_once_and_labels_empty_only_on_yes(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("L")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert store.query("q-0001").status is Status.DRAFT
        await pilot.press("L")
        await pilot.press("y")
        assert not isinstance(app.screen, ConfirmScreen)
        assert store.query("q-0001").status is Status.LABELLED
        await pilot.press("ctrl+z")
        assert store.query("q-0001").status is Status.DRAFT


async def test_l_on_a_query_with_evidence_does_not_ask(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("A", "L")  # q-0001 now abstains: S is the key for it
        assert not isinstance(app.screen, ConfirmScreen)
    assert store.query("q-0001").status is Status.DRAFT
    assert notes[-1] == "q-0001 has evidence or abstains: S moves its status on."

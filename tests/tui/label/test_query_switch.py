"""A selection belongs to the query it was made on (issue 33): every way the current query
changes (`U`, `J`/`K`, the list, a live change) drops it, so `a` files nothing elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.widgets.document_view import DocumentView
from tests.tui.conftest import record_notes
from tests.tui.test_app import label_screen, until


def spans(store: Store) -> dict[str, int]:
    return {q.id: len(q.evidence) for q in store.queries()}


BEFORE = {"q-0001": 0, "q-0002": 1, "q-0003": 0}
"""The seeded span counts, which none of these tests may change."""


async def test_U_drops_the_selection_and_a_then_adds_nothing(app: SpanlabApp, store: Store) -> None:
    """The repro: select on one query, `U`, `a` added the selection to the next one."""
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        await pilot.press("down", "down", "enter", "s")  # q-0003: "Shipping is free over 50 euros."
        assert s.current == "q-0003" and s.view.selection == (60, 91)
        await pilot.press("U", "a")
        await pilot.pause()
        assert s.current == "q-0001" and s.view.selection is None
    assert spans(store) == BEFORE


@pytest.mark.parametrize("key", ["J", "K"])
async def test_J_and_K_drop_the_selection(app: SpanlabApp, store: Store, key: str) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        await pilot.press("down", "enter", "s")
        assert s.current == "q-0002" and s.view.selection is not None
        await pilot.press(key, "a")
        await pilot.pause()
        assert s.current == {"J": "q-0003", "K": "q-0001"}[key]
        assert s.view.selection is None
    assert spans(store) == BEFORE


async def test_moving_in_the_list_drops_the_selection(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        await pilot.press("enter", "s", "shift+tab", "down")
        await pilot.pause()
        assert s.current == "q-0002" and s.view.selection is None
        await pilot.press("enter", "a")
        await pilot.pause()
    assert spans(store) == BEFORE


async def test_a_live_delete_of_the_current_query_drops_the_selection(
    app: SpanlabApp, store: Store, tmp_path: Path
) -> None:
    bob = Store.open(tmp_path / "labels.db")
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        await pilot.press("enter", "s")
        assert s.current == "q-0001" and s.view.selection is not None
        bob.delete_query("q-0001", annotator="bob", seen=bob.query("q-0001"))
        await until(pilot, lambda: "q-0001" not in s.state.queries)
        await pilot.press("a", "U", "a")
        await pilot.pause()
        assert s.view.selection is None
    assert spans(store) == {"q-0002": 1, "q-0003": 0}


async def test_an_add_asked_for_before_the_query_changed_is_refused(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`a` queued behind a change of query (a key typed ahead): nothing is filed, it says why."""
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        notes = record_notes(app, monkeypatch)
        await pilot.press("enter", "s")
        stale = DocumentView.SelectionMade(s.view, "billing.md", 0, 23, s.view.generation)
        await pilot.press("J")
        s.on_document_view_selection_made(stale)
        await pilot.pause()
    assert notes[-1] == "The query changed to q-0002: select the evidence again."
    assert spans(store) == BEFORE

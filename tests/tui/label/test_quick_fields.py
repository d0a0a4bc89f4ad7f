"""`p` sets the pattern and `l` the slices, with completion of the last slice from those in
use (issue 15); both save through the editor: undo, compare-and-set, the conflict dialog."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Boundary, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label.conflict import ConflictScreen
from labeler.tui.label.quick_fields import PatternPicker, SliceField, SlicePrompt, SliceSuggester
from tests.tui.conftest import QUIET


def complete(known: list[str], line: str) -> str | None:
    return asyncio.run(SliceSuggester(known).get_suggestion(line))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("cr", "critical"),
        ("critical, ta", "critical, tables"),
        ("critical ta", "critical tables"),
        ("tables, cr", "tables, critical"),
        ("critical, c", "critical, code"),  # critical is listed already
        ("lang:", "lang:de"),  # the most used first
        ("TA", "tables"),  # any case when no exact one
        ("critical, ", None),
        ("zz", None),
        ("tables", None),  # nothing longer to offer
    ],
)
def test_the_last_slice_is_completed(line: str, expected: str | None) -> None:
    known = ["lang:de", "critical", "code", "tables", "lang:fr"]
    assert complete(known, line) == expected


async def test_p_sets_the_pattern_and_undo_puts_it_back(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("p")
        assert isinstance(app.screen, PatternPicker)
        await pilot.press("1")
        assert store.query("q-0001").boundary is Boundary.CONDITION_CONSEQUENCE
        await pilot.press("p", "down", "down", "enter")  # from the current one, two down
        assert store.query("q-0001").boundary is Boundary.LIST_INTRO_ITEM
        await pilot.press("ctrl+z")
        assert store.query("q-0001").boundary is Boundary.CONDITION_CONSEQUENCE
        await pilot.press("ctrl+z")
        assert store.query("q-0001").boundary is Boundary.OTHER
        await pilot.press("p", "escape")
        assert store.query("q-0001").boundary is Boundary.OTHER


@pytest.mark.parametrize("accept", ["tab", "right"])
async def test_l_adds_a_slice_by_completion_and_undo_takes_it_off(
    app: SpanlabApp, store: Store, accept: str
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("l")
        assert isinstance(app.screen, SlicePrompt)
        await pilot.press(*", sh")
        await pilot.pause()
        await pilot.press(accept)
        assert app.screen.query_one(SliceField).value == "refunds, shipping"
        await pilot.press("enter")
        assert store.query("q-0001").slices == ("refunds", "shipping")
        await pilot.press("ctrl+z")
        assert store.query("q-0001").slices == ("refunds",)
        await pilot.press("ctrl+y")
        assert store.query("q-0001").slices == ("refunds", "shipping")


async def test_a_bad_slice_is_refused_in_the_dialog(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("l", *", " + "x" * 200, "enter")
        assert isinstance(app.screen, SlicePrompt)
        await pilot.press("escape")
        assert store.query("q-0001").slices == ("refunds",)


async def test_a_racing_writer_gets_the_conflict_dialog(
    app: SpanlabApp, store: Store, tmp_path: Path
) -> None:
    bob = Store.open(tmp_path / "labels.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("l", *", late")
        bob.update_query("q-0001", annotator="bob", slices=("billing",))
        await pilot.press("enter")
        assert isinstance(app.screen, ConflictScreen)
        assert store.query("q-0001").slices == ("billing",)  # nothing overwritten
        await pilot.press("a")  # reapply mine over bob's
        assert store.query("q-0001").slices == ("late", "refunds")
        await pilot.press("p")
        bob.update_query("q-0001", annotator="bob", boundary=Boundary.CONTROL)
        await pilot.press("3")
        assert isinstance(app.screen, ConflictScreen)
        await pilot.press("r")  # reload: keep bob's
        assert store.query("q-0001").boundary is Boundary.CONTROL
    bob.close()


async def test_undo_puts_back_a_review_another_made(store: Store, corpus: Corpus) -> None:
    store.update_query("q-0001", annotator="rita", status=Status.REVIEWED)
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET)  # ann created q-0001
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("S")  # reviewed goes back to draft
        assert store.query("q-0001").status is Status.DRAFT
        await pilot.press("ctrl+z")
        assert store.query("q-0001").status is Status.REVIEWED

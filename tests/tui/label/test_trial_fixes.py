"""What the second tmux trial tripped on: evidence edited under a review, go-to past the
end, and the review screen's edge keys named in the help."""

from __future__ import annotations

import pytest

from labeler.core.store import Store
from labeler.core.values import Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.review import ReviewScreen
from labeler.tui.screens.help import keys_table
from tests.tui.conftest import record_notes


def label(app: SpanlabApp) -> LabelScreen:
    assert isinstance(app.screen, LabelScreen)
    return app.screen


async def test_new_evidence_takes_a_review_back_in_one_undo_step(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.update_query("q-0002", annotator="rita", status=Status.REVIEWED)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("down", "enter")  # q-0002, in its document
        label(app).view.go_to(92)
        await pilot.press("s", "a")  # ann adds "Returns need a label."
        await pilot.pause()
        q = store.query("q-0002")
        assert (q.status, len(q.evidence)) == (Status.LABELLED, 2)
        assert "q-0002 was reviewed; its evidence changed: labelled again" in notes
        await pilot.press("ctrl+z")
        await pilot.pause()
        q = store.query("q-0002")
        assert (q.status, len(q.evidence)) == (Status.REVIEWED, 1)


async def test_go_to_past_the_end_says_so_and_takes_commas(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("enter", "g", *"99,999", "enter")
        await pilot.pause()
        view = label(app).view
        assert view.cursor == len(view.text) == 114
        assert notes[-1] == "billing.md holds 114 code points: went to its end"
        await pilot.press("g", *"1,0", "enter")
        await pilot.pause()
        assert view.cursor == 10


def test_the_review_edge_keys_are_named_one_by_one_in_the_help() -> None:
    table = keys_table([("Review screen", ReviewScreen.BINDINGS)], lambda key: key)
    keys, does = (list(column.cells) for column in table.columns)
    rows = dict(zip(keys, does, strict=True))
    assert rows["left_square_bracket"] == "Start one word left (] right, { } the end)"
    assert rows["right_square_bracket"] == "Start one word right"
    assert rows["right_curly_bracket"] == "End one word right"

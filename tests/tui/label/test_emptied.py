"""One key must not leave a query counted done with neither evidence nor abstention (issue
45, item 1, found again in the tmux trial on the merged code): `x` on a labelled query's
last span, or `A` taking a labelled query's abstention back, sends it to draft."""

from __future__ import annotations

import pytest
from textual.widgets import Checkbox, Input, Label, Select

from labeler.core.store import Store
from labeler.core.values import Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.label.query_form import QueryForm
from tests.tui.conftest import record_notes


def label(app: SpanlabApp) -> LabelScreen:
    assert isinstance(app.screen, LabelScreen)
    return app.screen


@pytest.mark.parametrize("status", [Status.LABELLED, Status.REVIEWED])
async def test_x_on_the_last_span_sends_the_query_back_to_draft(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch, status: Status
) -> None:
    store.update_query("q-0002", annotator="rita", status=status)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("down", "enter")  # q-0002, in its document
        label(app).view.go_to(65)  # inside "Shipping is free over 50 euros."
        await pilot.press("x")
        await pilot.pause()
        q = store.query("q-0002")
        assert (q.status, len(q.evidence)) == (Status.DRAFT, 0)
        assert notes[-1] == (
            "q-0002 has no evidence left and does not abstain: back to draft (^z undoes)"
        )
        await pilot.press("ctrl+z")
        await pilot.pause()
        q = store.query("q-0002")
        assert (q.status, len(q.evidence)) == (status, 1)


async def test_a_taking_back_the_only_abstention_sends_the_query_back_to_draft(
    app: SpanlabApp, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.update_query("q-0003", annotator="rita", status=Status.REVIEWED)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("down", "down", "A")  # q-0003 no longer abstains
        await pilot.pause()
        q = store.query("q-0003")
        assert (q.status, q.abstain) == (Status.DRAFT, False)
        assert notes[-1] == (
            "q-0003 has no evidence left and does not abstain: back to draft (^z undoes)"
        )
        await pilot.press("ctrl+z")
        await pilot.pause()
        q = store.query("q-0003")
        assert (q.status, q.abstain) == (Status.REVIEWED, True)


async def test_x_on_one_of_two_spans_keeps_the_status(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "enter")
        view = label(app).view
        view.select(92, 113)  # "Returns need a label."
        await pilot.press("a")
        view.go_to(65)
        await pilot.press("x")
        await pilot.pause()
    q = store.query("q-0002")
    assert (q.status, len(q.evidence)) == (Status.LABELLED, 1)


@pytest.mark.parametrize("key", ["ctrl+n", "e"])
async def test_the_form_does_not_take_an_empty_query_out_of_draft(
    app: SpanlabApp, store: Store, key: str
) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(key)  # q-0001 (e) is an empty draft; so is a new query (ctrl+n)
        form = app.screen
        assert isinstance(form, QueryForm)
        form.query_one("#text", Input).value = "Where is my parcel?"
        form.query_one("#status", Select).value = Status.LABELLED
        await pilot.press("ctrl+s")
        assert app.screen is form  # refused: the form stays open and says why
        error = str(form.query_one("#error", Label).render())
        assert error == (
            "no evidence and no abstention: a draft until a span is drawn or Abstain is "
            "ticked (L labels it empty, asking)"
        )
        form.query_one("#abstain", Checkbox).value = True
        await pilot.press("ctrl+s")
        assert app.screen is not form
    made = store.query("q-0004" if key == "ctrl+n" else "q-0001")
    assert (made.status, made.abstain) == (Status.LABELLED, True)

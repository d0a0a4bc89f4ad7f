"""The app around the label screen: other annotators' changes, themes, help, stats, form."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError
from labeler.core.store import Store
from labeler.core.values import Boundary, Span, Status
from labeler.tui.app import SpanlabApp
from labeler.tui.label import LabelScreen
from labeler.tui.screens.help import HelpScreen
from labeler.tui.screens.stats import StatsScreen
from labeler.tui.widgets.document_view import Role
from tests.tui.conftest import BILLING, QUIET, record_notes


async def until(pilot: Pilot[None], seen: Callable[[], bool]) -> None:
    """Let the app poll until it has seen the other connection's commit (5 s at most)."""
    for _ in range(100):
        if seen():
            return
        await pilot.pause(0.05)


def label_screen(app: SpanlabApp) -> LabelScreen:
    screen = app.screen_stack[0]  # the default screen, under any dialog
    assert isinstance(screen, LabelScreen)
    return screen


async def test_another_annotators_writes_appear_without_restart(
    app: SpanlabApp, store: Store, tmp_path: Path
) -> None:
    other = Store.open(tmp_path / "labels.db")
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        other.add_query("Who pays return shipping?", annotator="bob")
        span = Span.from_text(BILLING, "billing.md", 0, 23)
        other.add_span("q-0001", span, BILLING, annotator="bob")
        await until(pilot, lambda: len(s.query_list.ids) == 4 and len(s.view.marks) == 2)
        assert s.query_list.ids == ["q-0001", "q-0002", "q-0003", "q-0004"]
        assert [(m.start, m.end, m.role) for m in s.view.marks.marks] == [
            (0, 23, Role.CURRENT),
            (60, 91, Role.OTHER),
        ]
    other.close()


async def test_two_versions_of_one_query_side_by_side(
    app: SpanlabApp, store: Store, tmp_path: Path
) -> None:
    other = Store.open(tmp_path / "labels.db")
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        await pilot.press("enter", "s", "a")  # ann: "Refunds take five days."
        other.add_span(
            "q-0001", Span.from_text(BILLING, "billing.md", 0, 59), BILLING, annotator="bob"
        )
        await until(pilot, lambda: s.state.queries["q-0001"].spans == 2)
        await pilot.press("v")
        assert [(m.start, m.end, m.role, m.annotator) for m in s.view.marks.marks] == [
            (0, 23, Role.ANNOTATOR_A, "ann"),
            (0, 59, Role.ANNOTATOR_B, "bob"),
            (60, 91, Role.OTHER, "bob"),
        ]
        await pilot.press("v")
        assert {m.role for m in s.view.marks.marks} == {Role.CURRENT, Role.OTHER}
    other.close()


async def test_form_selects_change_pattern_and_status(app: SpanlabApp, store: Store) -> None:
    store.update_query("q-0001", annotator="ann", abstain=True)  # a draft with nothing stays one
    async with app.run_test(size=(80, 24)) as pilot:
        # Pattern: other → control (one up); status: draft → labelled (one down).
        await pilot.press("e", "tab", "enter", "up", "enter", "tab", "tab")
        await pilot.press("enter", "down", "enter", "ctrl+s")
        q = store.query("q-0001")
        assert (q.boundary, q.status) == (Boundary.CONTROL, Status.LABELLED)


async def test_form_refuses_empty_text(app: SpanlabApp, store: Store) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e", "end", "ctrl+u", "enter")
        assert store.query("q-0001").text == "How long do refunds take?"
        await pilot.press("escape")
        assert isinstance(app.screen, LabelScreen)


async def test_help_and_stats_screens(app: SpanlabApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "ctrl+t")
        assert isinstance(app.screen, StatsScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, LabelScreen)


def test_unknown_theme_is_refused(store: Store, corpus: Corpus) -> None:
    with pytest.raises(ConfigError, match="unknown theme 'neon'"):
        SpanlabApp(store, corpus, annotator="ann", theme="neon")


async def test_theme_is_applied_and_our_variables_resolve(store: Store, corpus: Corpus) -> None:
    app = SpanlabApp(store, corpus, annotator="ann", theme="light", settings=QUIET)
    async with app.run_test(size=(80, 24)):
        assert app.theme == "spanlab-light"
        variables = app.get_css_variables()
        assert variables["span-current"] == "#a0d1fd"
        assert variables["selection"] == "#f0a8fc"


async def test_a_screen_that_cannot_open_says_why_and_the_person_stays(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = record_notes(app, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert isinstance(app.screen, LabelScreen) and app.mode_name == "label"
        # "Loading triage …" first only when triage's package was not imported yet
        assert notes[-1] == "no run yet: `spanlab eval` makes one"
        assert notes[:-1] in ([], ["Loading triage …"])

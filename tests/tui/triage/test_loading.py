"""Triage says it is loading while it reads a run (issue 33: a big run took about six
seconds to appear with no sign of life): the line is painted before the read starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.content import Content
from textual.widgets import Static

from evaluator.runs.model import RunFile, read_run
from labeler.core.errors import StoreError
from labeler.tui.app import SpanlabApp
from labeler.tui.triage import TriageScreen
from labeler.tui.triage import screen as triage_screen
from tests.tui.triage.conftest import LATEST


def head(app: SpanlabApp) -> str:
    screen = app.screen
    assert isinstance(screen, TriageScreen)
    shown = screen.query_one("#triage-head", Static).content
    return shown.plain if isinstance(shown, Content) else str(shown)


async def test_the_head_says_loading_while_the_run_is_read(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, str]] = []

    def reading(folder: Path) -> RunFile:
        seen.append((folder.name, head(app)))
        return read_run(folder)

    monkeypatch.setattr(triage_screen, "read_run", reading)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        # read once, in a thread, under the loading line (the run list used to read it again)
        assert seen == [(LATEST, f"loading run {LATEST} …")]
        assert head(app).startswith(f"{LATEST} run ")  # then the run itself


async def test_a_run_that_cannot_be_read_is_said_in_the_head(
    app: SpanlabApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(folder: Path) -> RunFile:
        raise StoreError("run.json is not JSON", file=str(folder / "run.json"))

    monkeypatch.setattr(triage_screen, "read_run", broken)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert head(app) == f"run {LATEST} could not be read"

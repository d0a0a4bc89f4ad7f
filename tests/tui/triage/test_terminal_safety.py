"""The triage screens draw a question holding escape sequences (from the store's texts)
with no raw ESC, C1 or bidi character: the changes list, and the query screen's head
(§13, issue 20)."""

from __future__ import annotations

import re

from labeler.core.display import BIDI
from labeler.tui.app import SpanlabApp
from labeler.tui.triage import QueryScreen
from tests.tui.triage.conftest import QUIET, Project

HOSTILE = "cut \x1b]52;c;UFdORUQ=\x1b\\ \x1b]0;TITLE\x07 \x1b[2J \x9b2J \u202eevil\u202c"
RAW = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")


async def test_triage_shows_a_hostile_question_escaped(project: Project) -> None:
    app = SpanlabApp(None, project.corpus, annotator="pilot", screen="triage",
                     runs_dir=project.runs, theme="dark", settings=QUIET,
                     texts={"q-0001": HOSTILE, "q-0002": HOSTILE})  # fmt: skip
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        await pilot.pause()
        first = app.export_screenshot()
        assert RAW.search(first) is None
        assert "\\x1b]52;c;" in first  # the changes list shows it, escaped
        await pilot.press("down", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, QueryScreen)
        svg = app.export_screenshot()
        assert RAW.search(svg) is None
        assert "TITLE" in svg

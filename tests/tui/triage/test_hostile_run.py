"""A hostile run.json in the runs folder (§20) reaches no triage screen: the reader refuses
it, the Runs list leaves it out, and opening it anyway is a notice with the error escaped
and taken as plain text (a key holding `[@click=…]` is no Textual markup)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from labeler.tui.app import SpanlabApp
from labeler.tui.triage.screen import TriageScreen
from tests.tui.triage.conftest import LATEST, QUIET, Project
from tests.tui.triage.test_terminal_safety import RAW

HOSTILE_ID = "20250103-120000-000000"
KEY = "[@click=app.quit]numpy"


def plant(project: Project, tmp_path: Path) -> Path:
    runs = tmp_path / ".spanlab" / "runs"
    shutil.copytree(project.runs, runs)
    bad = runs / HOSTILE_ID
    shutil.copytree(runs / LATEST, bad)
    doc = json.loads((bad / "run.json").read_text("utf-8"))
    doc["id"] = HOSTILE_ID
    doc["manifest"]["settings"]["embedding"] += "\x1b]52;c;cHduZWQ=\x07\x1b]0;pwned\x07"
    doc["manifest"]["versions"] = {KEY: "\x1b]0;title\x07"}
    (bad / "run.json").write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    return runs


async def test_a_hostile_run_reaches_no_screen_raw(project: Project, tmp_path: Path) -> None:
    runs = plant(project, tmp_path)
    app = SpanlabApp(None, project.corpus, annotator="pilot", screen="triage",
                     runs_dir=runs, theme="dark", settings=QUIET)  # fmt: skip
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        assert HOSTILE_ID not in {r.id for r in screen.runs}  # refused, so not listed
        assert screen.runs[0].id == LATEST
        assert RAW.search(app.export_screenshot()) is None
        entry = dataclasses.replace(screen.runs[0], id=HOSTILE_ID, folder=runs / HOSTILE_ID)
        told: list[tuple[str, bool]] = []

        def notify(message: str, *, markup: bool = True, **kw: object) -> None:
            told.append((message, markup))

        screen.notify = notify  # type: ignore[method-assign]
        screen.open_run(entry)  # as if the index had listed it before the file was swapped
        await pilot.pause()
        ((message, markup),) = told
        assert markup is False  # `[@click=app.quit]` in a key is text, not an action
        assert RAW.search(message) is None
        key = 'key manifest.versions["[@click=app.quit]numpy"]'
        assert f"{key}: holds a control character (\\x1b)" in message
        assert RAW.search(app.export_screenshot()) is None
        assert app.is_running

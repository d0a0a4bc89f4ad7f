"""`spanlab show` and the query screen mark the same cuts at the same offsets.

Both draw `evaluator.runs.boundary.DocView`; this reads each one's output back into
{offset: (baseline cut, candidate cut)} and compares, for a cut loss and a crowded one.
"""

from __future__ import annotations

import pytest
from textual.content import Content
from textual.widgets import Static

from evaluator.runs.model import read_run
from evaluator.runs.show import show_text
from labeler.tui.app import SpanlabApp
from labeler.tui.triage import QueryScreen
from tests.tui.triage.conftest import LATEST, Project

Marks = dict[int, tuple[bool, bool]]

SHOW_MARKS = {"╫": (True, True), "▌": (True, False), "┊": (False, True)}
RULER = set(SHOW_MARKS) | {"▔", " "}
SCREEN_MARKS = {"▌": (True, False), "┊": (False, True)}


def read_marks(line: str, start: int, marks: dict[str, tuple[bool, bool]],
               skip: str = "") -> Marks:  # fmt: skip
    """Walk a drawn window: text advances the offset, a mark records a cut there."""
    found: Marks = {}
    offset, i = start, 0
    while i < len(line):
        mark = next((m for m in marks if line.startswith(m, i)), None)
        if mark is not None:
            base, cand = found.get(offset, (False, False))
            found[offset] = (base or marks[mark][0], cand or marks[mark][1])
            i += len(mark)
        else:
            offset += line[i] not in skip
            i += 1
    return found


def show_marks(project: Project, query: str) -> tuple[int, Marks]:
    """Read `show`'s rulers (issue 13: cuts on ruler lines under intact text) into marks."""
    run = read_run(project.runs / LATEST)
    out = show_text(run, query, "c40", project.corpus).split("\n")
    at = next(i for i, line in enumerate(out) if line.startswith("── a.md"))
    start = offset = int(out[at].split()[2].split("..")[0])
    found: Marks = {}
    lines = out[at + 1 : out.index("", at + 1)]
    i = 0
    while i < len(lines):
        ruler = lines[i + 1] if i + 1 < len(lines) and set(lines[i + 1]) <= RULER else ""
        found |= {offset + col: SHOW_MARKS[ch] for col, ch in enumerate(ruler) if ch in SHOW_MARKS}
        offset += len(lines[i]) + 1
        i += 2 if ruler else 1
    return start, found


@pytest.mark.parametrize(("query", "downs"), [("q-0001", 1), ("q-0002", 0)])
async def test_show_and_the_screen_mark_the_same_cuts(
    app: SpanlabApp, project: Project, query: str, downs: int
) -> None:
    start, expected = show_marks(project, query)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("2", *["down"] * downs, "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, QueryScreen) and screen.query_id == query
        shown = screen.query_one("#q-boundary-text", Static).content
        assert isinstance(shown, Content)
        heading, drawn = shown.plain.split("\n")
    assert heading == f"── a.md {start}..160"
    assert read_marks(drawn, start, SCREEN_MARKS) == expected
    # and the marks are the windows' real cuts: every 20 for c40-ov20, every 40 for c40
    assert expected == {x: (True, x % 40 == 0) for x in range(start, 161, 20)}

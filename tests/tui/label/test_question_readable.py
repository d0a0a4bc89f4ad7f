"""The current question stays readable at 80×24 (issue 33): the query panel wraps it under
the meta line and puts the note after it, so a long note is what the panel's height cuts."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import Static

from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label.screen import LabelScreen

QUESTION = (
    "What happens if my parcel still hasn't arrived ten business days after the estimated "
    "delivery date, and who pays for the replacement?"
)


async def test_a_long_note_leaves_the_whole_question_in_the_panel(
    app: SpanlabApp, store: Store
) -> None:
    store.update_query("q-0001", annotator="ann", text=QUESTION, notes="Check this. " * 40)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LabelScreen)
        panel = screen.query_one("#query-panel", Static)
        rows = [
            "".join(seg.text for seg in strip).strip()
            for strip in panel.render_lines(Region(0, 0, *panel.outer_size))
        ]
        assert len(rows) == 8  # the panel's most
        assert " ".join(rows[1:]).startswith(QUESTION), rows
        assert rows[4].startswith("✎ Check this. Check"), rows  # the note, cut by the height

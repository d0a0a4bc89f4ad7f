"""What an annotator sees of her day (issue 33): her queue done, queries edited today and
the pace, over the list; the query's pattern, slices and note wrap rather than being cut."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from textual.widgets import Label, Static

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp
from labeler.tui.label.showing import _clock
from tests.tui.conftest import QUIET
from tests.tui.test_app import label_screen


def test_progress_counts_the_queue_done_and_todays_queries(store: Store) -> None:
    done, of, today, pace = store.progress("ann", "2000-01-01")
    assert (done, of, today) == (2, 3, 2) and pace is not None and 0 <= pace < 5
    assert store.progress("ann", "9999-01-01") == (2, 3, 0, None)
    store.assign([("q-0001", "ann")], by="lead")
    assert store.progress("ann", "9999-01-01") == (0, 1, 0, None)  # her queue: q-0001


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(0, "<1m"), (59.4, "<1m"), (59.6, "1m00s"), (185, "3m05s"), (3720, "1h02m")],
)
def test_the_pace_reads_at_a_glance(seconds: float, said: str) -> None:
    assert _clock(seconds) == said


async def test_the_list_title_and_panel_at_80_columns(app: SpanlabApp, store: Store) -> None:
    store.update_query("q-0001", annotator="ann", notes="Ask billing first.")
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        title = str(s.query_one("#list-title", Label).render())
        assert title.splitlines()[1].startswith("2/3 done · ")
        await pilot.press("enter", "s", "a")
        await pilot.pause()
        assert (
            str(s.query_one("#list-title", Label).render())
            .splitlines()[1]
            .startswith("3/3 done · ")
        )
        await pilot.press("K")  # q-0001, its note: the meta line wraps rather than cuts it
        await pilot.pause()
        panel = s.query_one("#query-panel", Static)
        rows = [
            "".join(seg.text for seg in strip) for strip in panel.render_lines(panel.size.region)
        ]
        assert "Ask billing first." in " ".join(r.strip() for r in rows), rows


@pytest.mark.parametrize(
    ("now", "said"),
    [(datetime(2000, 1, 1, 23, 59, 59, tzinfo=UTC), "2/3 done · 2 today · <1m/query"),
     (datetime(9999, 1, 1, 0, 0, 1, tzinfo=UTC), "2/3 done · 0 today")],
)  # fmt: skip
async def test_today_is_the_day_of_the_apps_clock_not_the_wall_clocks(
    store: Store, corpus: Corpus, now: datetime, said: str
) -> None:
    """The fixture's edits are of the day the tests run: a clock frozen on a day before
    counts both, one on a day after counts none (so a picture cannot flip at midnight)."""
    app = SpanlabApp(store, corpus, annotator="ann", settings=replace(QUIET, clock=lambda: now))
    async with app.run_test(size=(80, 24)):
        title = str(label_screen(app).query_one("#list-title", Label).render())
    assert title.splitlines()[1] == said

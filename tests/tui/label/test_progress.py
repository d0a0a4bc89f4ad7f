"""What an annotator sees of her day (issue 33): her queue done, queries edited today and
the pace, over the list; the query's pattern, slices and note wrap rather than being cut."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.widgets import Label, Static

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Query, Span
from labeler.tui.app import SpanlabApp
from labeler.tui.label.panels import clock as _clock
from labeler.tui.label.panels import fitted, progress_forms
from labeler.tui.label.state import PAGE
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
    [(datetime(2000, 1, 1, 23, 59, 59, tzinfo=UTC), "2/3 done · 2 today · <1m"),
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


@pytest.mark.parametrize(
    ("figures", "width", "said"),
    [((12, 80, 3, 130.0), 40, "12/80 done · 3 today · 2m10s/query"),
     ((12, 80, 3, 130.0), 29, "12/80 done · 3 today · 2m10s"),
     ((99_999, 100_000, 35, 130.0), 29, "99999/100000 done · 35 today"),
     ((100_000, 100_000, 1000, 130.0), 29, "100000/100000 · 1000 today"),
     ((5, 7, 0, None), 29, "5/7 done · 0 today")],
)  # fmt: skip
def test_the_progress_line_takes_the_longest_form_that_fits(
    figures: tuple[int, int, int, float | None], width: int, said: str
) -> None:
    """At 80×24 the list pane leaves 29 cells: the line drops words rather than wrap."""
    assert fitted(progress_forms(*figures), width) == said


async def test_the_title_keeps_two_rows_at_80_columns(store: Store, corpus: Corpus) -> None:
    """A long name and a pace: the title is still two rows, the list starts on the fourth."""
    now = datetime(2000, 1, 1, 23, 59, 59, tzinfo=UTC)
    settings = replace(QUIET, clock=lambda: now)
    app = SpanlabApp(store, corpus, annotator="ann", settings=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        title = label_screen(app).query_one("#list-title", Label)
        rows = ["".join(seg.text for seg in strip).strip()
                for strip in title.render_lines(title.size.region)]  # fmt: skip
        assert title.size.height == 2 and rows == ["3/3 queries · ann", "2/3 done · 2 today · <1m"]


async def test_a_big_store_counts_its_progress_in_a_thread(tmp_path: Path, corpus: Corpus) -> None:
    """Past a page of queries the count runs apart (its own connection): the title says
    'counting…' until it is in, then the figures, and an edit counts again."""
    big = Store.open(tmp_path / "big.db")
    big.bind(corpus.doc_hashes)
    text = corpus.text(next(iter(corpus)).id)
    doc = next(iter(corpus)).id
    queries = [Query(f"q-{n:04d}", f"question {n}") for n in range(1, PAGE + 6)]
    queries[0] = Query("q-0001", "question 1", evidence=(Span.from_text(text, doc, 0, 5),))
    with big.write() as db:
        big.put_queries(queries, {doc: text}, db=db)
    app = SpanlabApp(big, corpus, annotator="ann", settings=QUIET)
    async with app.run_test(size=(80, 24)) as pilot:
        s = label_screen(app)
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = str(s.query_one("#list-title", Label).render()).splitlines()
        assert title[1] == f"1/{PAGE + 5} done · 0 today"
        await pilot.press("end", "A")  # the last query abstains
        await app.workers.wait_for_complete()
        await pilot.pause()
        title = str(s.query_one("#list-title", Label).render()).splitlines()
        assert title[1].startswith(f"2/{PAGE + 5} done · 1 today")
    big.close()


async def test_undo_and_redo_count_the_day_again(app: SpanlabApp) -> None:
    """The trial's stale line: a span added then undone left "3/3 done" over a draft with
    no evidence (the store counted 2); redo counts it done again."""

    def done() -> str:
        return str(label_screen(app).query_one("#list-title", Label).render()).splitlines()[1]

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter", "s", "a")
        await pilot.pause()
        assert done().startswith("3/3 done · ")
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert done().startswith("2/3 done · ")
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert done().startswith("3/3 done · ")

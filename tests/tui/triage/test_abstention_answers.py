"""Abstention queries' answers in triage (§23): the query list shows the abstention queries
whose abstention check changed against the baseline (by default) or every one (`abstain`),
and `a` on the list — or on the query screen — opens the answer, `b` the baseline's.

The run is made by the pipeline against the loopback chat server with three abstention
queries (tests/tui/triage/answers.py): through the candidate c40, q-0004 is answered where
the baseline abstained (lost), q-0005 abstained where the baseline answered (gained), and
q-0006 abstained by both.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Static

from evaluator.runs.model import read_run
from labeler.core.corpus.folder import Corpus
from labeler.tui.app import SpanlabApp
from labeler.tui.triage.answer_render import ABSTAIN
from labeler.tui.triage.answer_screen import AnswerScreen
from labeler.tui.triage.change_filter import ChangeFilter, count_line
from labeler.tui.triage.model import ABSTAIN_GAINED, ABSTAIN_LOST, ABSTAIN_SAME, RunView
from labeler.tui.triage.query_screen import QueryScreen
from labeler.tui.triage.screen import TriageScreen
from labeler.tui.triage.widgets import change_line
from tests.tui.triage.answers import ABSTENTIONS, UNWISE, write_answered_run
from tests.tui.triage.conftest import LATEST, QUIET, TEXTS, Project, queries

SnapCompare = Callable[..., bool]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_answered_run(tmp_path_factory.mktemp("abstain"), abstentions=True)


@pytest.fixture
def run(runs: Path) -> RunView:
    return RunView(read_run(runs / LATEST), runs / LATEST)


def app_on(runs: Path) -> SpanlabApp:
    corpus = Corpus.from_texts(TEXTS)
    every = [*queries(corpus), *ABSTENTIONS]
    return SpanlabApp(None, corpus, annotator="pilot", screen="triage", runs_dir=runs,
                      theme="dark", texts={q.id: q.text for q in every},
                      settings=QUIET)  # fmt: skip


def test_the_list_shows_the_abstention_queries_whose_answer_changed(run: RunView) -> None:
    rows = run.changes("c40")
    assert [(r.query, r.status) for r in rows if r.query >= "q-0004"] == [
        ("q-0004", ABSTAIN_LOST), ("q-0005", ABSTAIN_GAINED), ("q-0006", ABSTAIN_SAME)]  # fmt: skip
    shown = ChangeFilter().apply(rows)
    assert [r.query for r in shown] == ["q-0002", "q-0001", "q-0003", "q-0004", "q-0005"]
    assert count_line(shown, "k = 1") == (
        "2 lost, 1 gained at k = 1 · abstention queries: 1 answered, 1 abstained"
    )
    every = ChangeFilter.parse("abstain").apply(rows)
    assert [r.query for r in every] == ["q-0004", "q-0005", "q-0006"]
    assert count_line(every) == "0 lost, 0 gained · abstention queries: 1 answered, " \
        "1 abstained, 1 unchanged"  # fmt: skip
    asked = run.changes("c40", {q.id: q.text for q in ABSTENTIONS})
    assert [r.query for r in ChangeFilter.parse("abstain yyyy").apply(asked)] == [
        "q-0005", "q-0006"]  # words of the text still narrow  # fmt: skip
    assert ChangeFilter.parse("lost").apply(rows) == [r for r in rows if r.status == "lost"]


def test_an_abstention_row_says_what_the_candidate_did(run: RunView) -> None:
    row = next(r for r in run.changes("c40", {"q-0004": "eepp eeqq"}) if r.query == "q-0004")
    line = change_line(row)
    assert line.plain == "▼ q-0004    answered           other                    \n   eepp eeqq"
    assert (row.cause, row.recall_delta, row.docs) == (None, None, ())
    same = next(r for r in run.changes("c40") if r.query == "q-0006")
    assert change_line(same).plain.startswith("○ q-0006    abstention         other")


def test_a_run_without_answers_lists_no_abstention_rows(project: Project) -> None:
    plain = RunView(read_run(project.runs / LATEST))
    assert {r.status for r in plain.changes("c40")} <= {"lost", "gained", "unchanged-miss",
                                                        "unchanged-hit"}  # fmt: skip


async def test_a_person_reads_the_answer_of_an_abstention_query(runs: Path) -> None:
    """`a` on the list opens the highlighted row's answer; `b` the baseline's; `n` the next
    row; escape comes back to the list. Enter still opens the query screen, `a` there too."""
    app = app_on(runs)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2", "slash", *"abstain", "enter")
        await pilot.pause()
        triage = app.screen
        assert isinstance(triage, TriageScreen) and triage.check_action("answer", ()) is True
        assert [r.query for r in triage.rows] == ["q-0004", "q-0005", "q-0006"]
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnswerScreen) and screen.view is not None
        assert (screen.view.query, screen.view.candidate) == ("q-0004", "c40")
        body = text(screen, "#a-body-text")
        assert UNWISE in body and "abstention wrong" in body and ABSTAIN in body
        assert "q-0004 answered through candidate c40 · 1/3" in text(screen, "#a-head")
        await pilot.press("b")
        await settle(pilot)
        assert screen.view.candidate == "c40-ov20"
        assert "NOT IN SOURCES" in text(screen, "#a-body-text")
        assert "abstention right" in text(screen, "#a-body-text")
        await pilot.press("n")
        await settle(pilot)
        assert screen.view.query == "q-0005" and "The code is 7 [2]." in text(
            screen, "#a-body-text"
        )
        await pilot.press("escape")
        assert app.screen is triage
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QueryScreen) and app.screen.query_id == "q-0004"
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, AnswerScreen) and app.screen.view is not None
        assert app.screen.view.query == "q-0004"


async def test_the_answer_key_is_not_offered_without_answers(project: Project) -> None:
    app = SpanlabApp(None, project.corpus, annotator="pilot", screen="triage",
                     runs_dir=project.runs, theme="dark", settings=QUIET)  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await pilot.pause()
        assert isinstance(app.screen, TriageScreen)
        assert app.screen.check_action("answer", ()) is False
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, TriageScreen)


def test_the_query_list_with_abstention_rows_at_80_by_24(
    snap_compare: SnapCompare, runs: Path
) -> None:
    """The Queries tab of the run with answers, c40 against c40-ov20, no filter: the count
    line "2 lost, 1 gained at k = 1 · abstention queries: 1 answered, 1 abstained · critic…";
    rows ▼ q-0002 ! crowded, ▼ q-0001 cut, ▲ q-0003 gained, then ▼ q-0004 "answered" and
    ▲ q-0005 "abstained" (no recall delta), each with its text on the line below. Footer:
    c Candidate, / Filter, e Fix label, a Answer, ^q Quit, ? Keys."""

    async def open_queries(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("2")
        await pilot.pause()

    assert snap_compare(app_on(runs), terminal_size=(80, 24), run_before=open_queries)


async def settle(pilot: Pilot[None]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def text(screen: AnswerScreen, selector: str) -> str:
    found = screen.query_one(selector, Static).render()
    return found.plain if isinstance(found, Content) else str(found)

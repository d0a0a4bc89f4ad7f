"""The answer screen (§23): a query's answer beside its numbered sources, citations drawn by
what they cite, labelled facts marked, unsupported items listed, every check's value; the
run is made by the pipeline against the loopback chat server (tests/tui/triage/answers.py).
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
from labeler.tui.triage.answer_model import AnswerView, answer_view, value_text
from labeler.tui.triage.answer_render import EMPTY, HOLDS, UNKNOWN, answer_text, body_content
from labeler.tui.triage.answer_screen import AnswerScreen
from labeler.tui.triage.model import RunView
from labeler.tui.triage.query_screen import QueryScreen
from tests.tui.triage.answers import ANSWER, write_answered_run
from tests.tui.triage.conftest import LATEST, QUIET, TEXTS, Project, queries

SnapCompare = Callable[..., bool]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_answered_run(tmp_path_factory.mktemp("answers"))


@pytest.fixture
def run(runs: Path) -> RunView:
    return RunView(read_run(runs / LATEST), runs / LATEST)


def app_on(runs: Path) -> SpanlabApp:
    corpus = Corpus.from_texts(TEXTS)
    return SpanlabApp(None, corpus, annotator="pilot", screen="triage", runs_dir=runs,
                      theme="dark", texts={q.id: q.text for q in queries(corpus)},
                      settings=QUIET)  # fmt: skip


def view(run: RunView, qid: str, candidate: str) -> AnswerView:
    return answer_view(run, run.answers(), qid, candidate, Corpus.from_texts(TEXTS))


def test_the_baseline_answer_its_sources_and_checks(run: RunView) -> None:
    found = view(run, "q-0001", "c40-ov20")
    assert found.record is not None and found.record.answer == ANSWER
    s1, s2 = found.sources
    assert (s1.number, s1.start, s1.end, s1.cited, s1.evidence) == (1, 20, 60, True, (1,))
    assert s1.standing == "cited, holds e1" and s1.marks == ((0, 39),)
    assert s1.text == TEXTS["a.md"][20:60]
    assert (s2.start, s2.end, s2.evidence, s2.standing) == (0, 40, (), "cited, holds no evidence")
    assert s2.marks == ((20, 40),)  # e1 is 20..59: its first 20 characters lie in [2]
    values = {c.name: value_text(c.name, c.value) for c in found.record.checks}
    assert values == {"citation_precision": "0.33", "citation_recall": "1.00",
                      "unsupported": "1", "completeness": "0.67", "abstention": "right",
                      "repeated_sentences": "1"}  # fmt: skip
    assert [f.stated for f in found.record.facts] == [True, True, False]


def test_the_candidate_cites_sources_that_hold_no_evidence(run: RunView) -> None:
    found = view(run, "q-0001", "c40")
    assert [(s.start, s.end, s.standing) for s in found.sources] == [
        (0, 40, "cited, holds no evidence"), (40, 80, "cited, holds no evidence")]  # fmt: skip
    assert found.record is not None and found.record.value("citation_precision") == 0.0
    assert value_text("abstention", found.record.value("abstention")) == "wrong"  # e1 cut: none


def test_citations_are_drawn_by_what_they_cite(run: RunView) -> None:
    found = view(run, "q-0001", "c40-ov20")
    drawn = answer_text(ANSWER, found.sources)
    styles = {drawn.plain[s.start : s.end]: str(s.style) for s in drawn.spans}
    assert styles == {"[1]": HOLDS, "[99]": UNKNOWN, "[2]": EMPTY}


def test_the_body_lists_facts_unsupported_and_repeats(run: RunView) -> None:
    plain = body_content(view(run, "q-0001", "c40-ov20")).plain
    assert "facts: 2/3 stated\n  ✓ bbpp\n  ✓ zzzz | ccpp\n  ✗ missing fact" in plain
    assert "unsupported: 1\n  • number: 42" in plain
    assert "repeated: 1\n  • blocks bbpp and ccpp" in plain
    assert "cites no source: 1\n  • [99]" in plain
    assert "citation precision 0.33 · citation recall 1.00 · unsupported 1" in plain


def test_a_query_the_candidate_did_not_send_says_why(run: RunView) -> None:
    found = answer_view(run, {}, "q-0001", "c40", Corpus.from_texts(TEXTS))
    assert found.record is None and found.sources == ()
    assert found.note == "no answer recorded: this candidate did not send the query (send = all)"


def test_another_corpus_shows_the_sources_by_offsets_only(run: RunView) -> None:
    moved = Corpus.from_texts({**TEXTS, "a.md": TEXTS["a.md"].upper()})
    found = answer_view(run, run.answers(), "q-0001", "c40-ov20", moved)
    assert found.note is not None and "corpus" in found.note
    assert [s.text for s in found.sources] == [None, None]
    assert found.sources[0].standing == "cited, holds e1"  # the record's, not the text's


async def test_a_person_opens_the_answer_switches_side_and_walks(runs: Path) -> None:
    app = app_on(runs)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("2", "down", "enter")
        await pilot.app.workers.wait_for_complete()
        assert isinstance(app.screen, QueryScreen) and app.screen.query_id == "q-0001"
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnswerScreen) and screen.view is not None
        assert (screen.view.query, screen.view.candidate) == ("q-0001", "c40")
        assert "candidate c40" in _text(screen, "#a-head")
        await pilot.press("b")
        await settle(pilot)
        assert screen.view.candidate == "c40-ov20"
        assert "[1] a.md 20–60 · cited, holds e1" in _text(screen, "#a-sources-text")
        await pilot.press("n")  # the list's next: q-0003, gained, the escapes answer
        await settle(pilot)
        assert screen.view.query == "q-0003"
        body = _text(screen, "#a-body-text")
        assert "\x1b" not in body and "\x07" not in body and "\\x1b[31m" in body
        await pilot.press("escape")
        assert isinstance(app.screen, QueryScreen)


async def test_a_run_without_answers_offers_no_answer_key(project: Project) -> None:
    app = SpanlabApp(None, project.corpus, annotator="pilot", screen="triage",
                     runs_dir=project.runs, theme="dark", settings=QUIET)  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("2", "down", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, QueryScreen)
        assert app.screen.check_action("answer", ()) is False


def test_the_answer_at_80_by_24(snap_compare: SnapCompare, runs: Path) -> None:
    """q-0001 through the baseline c40-ov20 (`b` from the candidate's): the head says
    "q-0001 answered through baseline c40-ov20 · 2/3" and the question. Above: "answer:
    answered", the six checks side by side (citation precision 0.33 · citation recall 1.00
    · unsupported 1 · completeness 0.67 · abstention right · repeated 1), the answer with
    [1] underlined in the success colour, [99] reversed in the error colour and [2] italic
    in the warning colour, then "facts: 2/3 stated" and "✓ bbpp" (the other facts and the
    unsupported 42 below: the pane scrolls, its bar on the right). Below, after a rule:
    "context: 2 sources", "[1] a.md 20–60 · cited, holds e1" with its text shaded from its
    first character, "[2] a.md 0–40 · cited, holds no evidence" with its last 20 characters
    shaded. Footer: esc Back, n p Next/prev, b Baseline/candidate, ^q Quit, ? Keys."""

    async def open_answer(pilot: Pilot[None]) -> None:
        await pilot.press("2", "down", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)

    assert snap_compare(app_on(runs), terminal_size=(80, 24), run_before=open_answer)


async def settle(pilot: Pilot[None]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _text(screen: AnswerScreen, selector: str) -> str:
    found = screen.query_one(selector, Static).render()
    return found.plain if isinstance(found, Content) else str(found)

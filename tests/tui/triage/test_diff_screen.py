"""Triage of a diff (§16): run OLDER's baseline `c40-ov20` against run LATEST's `c40`.

Both runs hold the hand-worked results of conftest.py, so the pair reproduces what the
run itself says of c40 against its baseline — lost q-0002 (crowded) and q-0001 (cut),
gained q-0003, recall@k 0.667 → 0.333 — now measured by `evaluator.runs.diff` across two
runs. The summary, the queries list and the boundary view must say exactly that.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest
from textual.pilot import Pilot

from evaluator.candidates import parse
from evaluator.metrics.registry import RECALL
from evaluator.pipeline import run_evaluation, run_file
from evaluator.runs.folder import write_run
from evaluator.runs.model import read_run
from labeler.core.errors import SpanlabError
from labeler.tui.app import SpanlabApp
from labeler.tui.triage import QueryScreen, TriageScreen
from labeler.tui.triage.diff_model import DiffView, open_diff
from labeler.tui.triage.model import RunView
from labeler.tui.triage.widgets import ChangeList
from tests.tui.triage.conftest import CANDIDATES, LATEST, OLDER, QUIET, Project, queries
from tests.tui.triage.test_screen import lines, text


def diff_app(project: Project, candidate: str = "c40", against: str = "c40-ov20") -> SpanlabApp:
    diff = open_diff(project.runs, OLDER, LATEST, candidate=candidate, against_candidate=against)
    return SpanlabApp(None, project.corpus, annotator="pilot", screen="triage",
                      runs_dir=project.runs, theme="dark", settings=QUIET, diff=diff,
                      texts={q.id: q.text for q in queries(project.corpus)})  # fmt: skip


def triage(pilot: Pilot[None]) -> TriageScreen:
    assert isinstance(pilot.app.screen, TriageScreen)
    return pilot.app.screen


def test_the_folded_diff_measures_what_the_run_measures_of_the_same_pair(project: Project) -> None:
    view = DiffView(open_diff(project.runs, OLDER, LATEST, candidate="c40",
                              against_candidate="c40-ov20"))  # fmt: skip
    own = RunView(read_run(project.runs / LATEST))
    assert view.baseline == "A c40-ov20" and view.others == ["B c40"]
    got = {m.name: (m.baseline, m.candidate) for m in view.metric_lines("B c40")}
    assert got == {m.name: (m.baseline, m.candidate) for m in own.metric_lines("c40")}
    assert got[RECALL] == pytest.approx((2 / 3, 1 / 3))
    rows = [(r.query, r.status, r.cause) for r in view.changes("B c40")]
    assert rows[:3] == [("q-0002", "lost", "crowded"), ("q-0001", "lost", "cut"),
                        ("q-0003", "gained", None)]  # fmt: skip
    assert view.gates("B c40") == [] and view.rules("A c40-ov20") == ("chunk", "union")


async def test_a_diff_opens_on_its_summary_with_the_deltas_and_what_differs(
    project: Project,
) -> None:
    async with diff_app(project).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        head = lines(screen, "#triage-head")
        assert head[0] == "B c40 vs A c40-ov20 · ▲1 ▼2 · 3 shared queries"
        assert head[1] == f"A {OLDER} match chunk → B {LATEST} match chunk"
        metrics = text(screen, "#metrics")
        assert metrics.split("\n")[0].split() == ["▌", "run", "A", "┊", "run", "B", "Δ"]
        assert "0.667" in metrics and "0.333" in metrics and "-0.333" in metrics
        assert "1 gained / 2 lost" in text(screen, "#significance")
        assert "what differs (A → B):\nsplitter overlap: 20 → 0" in text(screen, "#gates")


async def test_the_queries_tab_lists_the_lost_and_gained_and_the_boundary_view_draws_both(
    project: Project,
) -> None:
    async with diff_app(project).run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        screen = triage(pilot)
        listed = screen.query_one(ChangeList)
        assert [o.id for o in listed.options] == ["q-0002", "q-0001", "q-0003"]
        assert text(screen, "#change-count").startswith("2 lost, 1 gained")
        await pilot.press("down", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        query = pilot.app.screen
        assert isinstance(query, QueryScreen)
        assert text(query, "#q-head").startswith("q-0001 lost (cut)")
        assert "A c40-ov20" in text(query, "#q-legend") and "B c40" in text(query, "#q-legend")
        assert lines(query, "#q-boundary-text")[0] == "── a.md 0..160"
        assert "B c40: CUT no chunk holds ≥80% of it" in text(query, "#q-fates-text")


async def test_the_same_candidate_in_two_runs_of_the_same_results_changes_nothing(
    project: Project,
) -> None:
    async with diff_app(project, "c40", "c40").run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        assert lines(screen, "#triage-head")[0] == "B c40 vs A c40 · ▲0 ▼0 · 3 shared queries"
        assert text(screen, "#gates") == "settings and manifests: the same"
        assert text(screen, "#change-count").startswith("0 lost, 0 gained")


def test_an_unknown_candidate_is_refused_before_any_terminal(project: Project) -> None:
    with pytest.raises(SpanlabError, match=f"no candidate 'nope' in run {OLDER}"):
        open_diff(project.runs, OLDER, LATEST, candidate="nope")


UNION = "20250103-120000-000000"
"""The same candidates measured with `match = "union"`."""


@pytest.fixture
def with_union(project: Project, tmp_path: Path) -> Project:
    """The project's runs plus a `match = "union"` run of the same candidates and labels."""
    runs = tmp_path / "runs"
    shutil.copytree(project.runs, runs)
    settings = {**cast(dict[str, object], CANDIDATES["settings"]), "match": "union"}
    cfile = parse({**CANDIDATES, "settings": settings}, file="union.toml")
    result = run_evaluation(cfile, project.corpus, queries(project.corpus),
                            label_corpus_hash=project.corpus.hash,
                            label_set_hash="sha256:test")  # fmt: skip
    run = dataclasses.replace(result, id=UNION, started="2025-01-03T12:00:00Z")
    write_run(run_file(run, include_text=False), runs)
    return dataclasses.replace(project, runs=runs)


async def test_a_chunk_run_against_a_union_run_names_each_side_s_rule(with_union: Project) -> None:
    diff = open_diff(with_union.runs, LATEST, UNION, candidate="c40")
    app = SpanlabApp(None, with_union.corpus, annotator="pilot", screen="triage",
                     runs_dir=with_union.runs, theme="dark", settings=QUIET, diff=diff)  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = triage(pilot)
        assert lines(screen, "#triage-head")[1] == f"A {LATEST} match chunk → B {UNION} match union"
        assert "setting match: chunk → union" in text(screen, "#gates")
        assert text(screen, "#other-rule").startswith("A under union, B under chunk, at k: +")
        assert isinstance(screen.run, DiffView)
        assert screen.run.rules("A c40") == ("chunk", "union")
        assert screen.run.rules("B c40") == ("union", "chunk")


def test_snapshot_of_a_diff_summary(snap_compare: Callable[..., bool], project: Project) -> None:
    """Head: B c40 (candidate colour) vs A c40-ov20 (baseline colour) · ▲1 ▼2 · 3 shared
    queries; under it A 20250101-120000-000000 match chunk → B 20250102-120000-000000 match
    chunk. Left: A c40-ov20 (baseline, dimmed), B c40 with +1 −2 Δrecall -0.333; then
    "what differs (A → B):" and splitter overlap: 20 → 0; then A under union, B under
    union: +1 −2 Δrecall -0.333. Right: the metrics table, its columns ▌ run A and ┊ run B
    (recall@k 0.667 0.333 -0.333 ✗, chunks 8 5 -3) and the bootstrap interval with "too
    small to be decisive". No gate lines: a diff has no gates. Footer: c Candidate,
    / Filter, ^q Quit, ? Keys."""

    async def settle(pilot: Pilot[None]) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(diff_app(project), terminal_size=(80, 24), run_before=settle)

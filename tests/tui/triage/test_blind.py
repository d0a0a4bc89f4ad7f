"""Blind in triage (§20): the lead's run measured q-0001 on evidence that, in the store
now, holds bob's undecided version; ann (not a lead) is not listed q-0001, and is told
how many queries were left out and why; the lead sees all three."""

from __future__ import annotations

from labeler.core.store import Store, Version
from labeler.core.team.roles import Member, Team
from labeler.core.values import Span
from labeler.tui.app import SpanlabApp
from tests.tui.triage.conftest import DOC_A, QUIET, Project
from tests.tui.triage.test_screen import text, triage

TEAM = Team(("rita",), ("ann", "bob"), "spanlab.toml", (4, 5))


def bobs_version(store: Store) -> None:
    with store.write() as db:
        span = Span.from_text(DOC_A, "a.md", 20, 59)
        store.put_versions([("q-0001", Version("bob", False, (span,)))], {"a.md": DOC_A}, db=db)


async def rows_for(project: Project, store: Store, who: str) -> tuple[list[str], str]:
    app = SpanlabApp(store, project.corpus, annotator=who, screen="triage",
                     runs_dir=project.runs, settings=QUIET, member=Member(who, who, TEAM),
                     blind=True)  # fmt: skip
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        screen = triage(pilot)
        return [r.query for r in screen.rows], text(screen, "#change-count")


async def test_a_non_lead_is_not_listed_a_query_of_anothers_undecided_version(
    project: Project, store: Store
) -> None:
    bobs_version(store)
    listed, said = await rows_for(project, store, "ann")
    assert listed == ["q-0002", "q-0003"]
    assert said.endswith(
        " · 1 left out: blind (the project's `blind = true`) keeps another's version from "
        "you until a lead decides the query"
    )
    listed, said = await rows_for(project, store, "rita")
    assert listed == ["q-0002", "q-0001", "q-0003"] and "left out" not in said


async def test_a_version_written_while_the_list_is_open_hides_its_query_at_the_next_listing(
    project: Project, store: Store
) -> None:
    app = SpanlabApp(store, project.corpus, annotator="ann", screen="triage",
                     runs_dir=project.runs, settings=QUIET, member=Member("ann", "ann", TEAM),
                     blind=True)  # fmt: skip
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        screen = triage(pilot)
        assert [r.query for r in screen.rows] == ["q-0002", "q-0001", "q-0003"]
        bobs_version(store)
        await pilot.press("slash", "q")  # the filter lists again
        await pilot.pause()
        assert [r.query for r in screen.rows] == ["q-0002", "q-0003"]

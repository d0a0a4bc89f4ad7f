"""The agreement screen keeps adjudication for leads when spanlab.toml has a `[team]`
(§15); the lead who imported the drafts decides them (the review rule looks at who made
the evidence); and someone off the team cannot switch to the label screen either."""

from __future__ import annotations

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store, Version
from labeler.core.team.roles import Member, Team
from labeler.core.values import Span
from labeler.tui.agreement.screen import AgreementScreen
from labeler.tui.app import SpanlabApp
from tests.tui.agreement.test_agreement_screen import double
from tests.tui.conftest import BILLING, QUIET, record_notes

TEAM = Team(("rita",), ("ann", "bob", "cat"), "spanlab.toml", (4, 5))


async def test_an_annotator_cannot_keep_send_back_or_merge(
    store: Store, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    double(store)
    cat = Member("cat", "cat", TEAM)  # holds no version: only the role stops her
    app = SpanlabApp(store, corpus, annotator="cat", settings=QUIET, member=cat)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("R", "2", "m", "b", *"redo", "enter")
    assert store.adjudications("q-0001") == [] and store.query("q-0001").evidence == ()
    why = 'cat is an annotator; adjudicating is for leads (spanlab.toml line 4: leads = ["rita"])'
    assert notes == [why, why, why]


async def test_the_lead_who_created_the_query_keeps_a_version(store: Store, corpus: Corpus) -> None:
    """rita typed q-0004 in; ann and bob labelled it: rita made none of its evidence."""
    assert store.add_query("Are refunds free?", annotator="rita").id == "q-0004"
    first = Span.from_text(BILLING, "billing.md", 0, 23)
    words = Span.from_text(BILLING, "billing.md", 0, 12)
    with store.write() as db:
        store.put_versions(
            [("q-0004", Version("ann", False, (first,))),
             ("q-0004", Version("bob", False, (words,)))],
            {"billing.md": BILLING}, db=db,
        )  # fmt: skip
    rita = Member("rita", "rita", TEAM)
    app = SpanlabApp(store, corpus, annotator="rita", settings=QUIET, member=rita)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("R")
        assert isinstance(app.screen, AgreementScreen)
        app.screen.show_query("q-0004")
        await pilot.press("2")
    assert store.adjudications("q-0004")[0][:2] == ("keep", ["bob"])
    assert [(s.start, s.end) for s in store.query("q-0004").evidence] == [(0, 12)]


async def test_someone_off_the_team_cannot_open_the_label_screen(
    store: Store, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`spanlab label` refuses them; the app opened on another screen (triage, stats) does
    not let them switch to labelling either."""
    carol = Member("carol", "carol", TEAM)
    app = SpanlabApp(store, corpus, annotator="carol", screen="stats", settings=QUIET,
                     member=carol)  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("ctrl+l")
        assert app.mode_name == "stats"
    assert notes == [
        "carol is not on the team; labelling is for annotators and leads "
        '(spanlab.toml line 5: annotators = ["ann", "bob", "cat"])'
    ]

"""Blind in every screen (§20): with `blind = true`, the agreement and review screens keep
another's undecided version from a member who is not a lead — ann, who labelled the query,
and cat, who joined later — and show it to the lead; once the lead decides it is open."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store, Version
from labeler.core.team.roles import Member, Team
from labeler.core.values import Span
from labeler.tui.agreement.screen import AgreementScreen
from labeler.tui.app import SpanlabApp
from labeler.tui.modes import BLIND_LABEL
from labeler.tui.review import ReviewScreen
from tests.tui.conftest import BILLING, QUIET, record_notes

TEAM = Team(("rita",), ("ann", "bob", "cat"), "spanlab.toml", (4, 5))
BOBS = (24, 59)
"""bob's span of q-0001: "Cards are credited within two days."."""
BOB_QUOTE = BILLING[BOBS[0] : BOBS[1]]
SHUT = (
    "every query waiting for adjudication (1) holds another's version: blind (the project's "
    "`blind = true`) keeps another's version from you until a lead decides the query"
)


def versions(store: Store) -> None:
    """ann marks q-0001's first sentence, bob the next one."""
    first = Span.from_text(BILLING, "billing.md", 0, 23)
    cards = Span.from_text(BILLING, "billing.md", *BOBS)
    with store.write() as db:
        store.put_versions(
            [("q-0001", Version("ann", False, (first,))),
             ("q-0001", Version("bob", False, (cards,)))],
            {"billing.md": BILLING}, db=db,
        )  # fmt: skip


def app_for(store: Store, corpus: Corpus, who: str, screen: str = "label") -> SpanlabApp:
    """The app as `spanlab label` (which reads the member's own version) or another
    command hands it over in a blind project."""
    store.view = who if screen == "label" else ""
    return SpanlabApp(store, corpus, annotator=who, settings=QUIET, screen=screen,
                      member=Member(who, who, TEAM), blind=True)  # fmt: skip


@pytest.mark.parametrize(
    ("who", "why"),
    [("ann", "every query waiting for adjudication (1) holds your blind version, so the "
             "agreement screen stays closed to you"),
     ("cat", SHUT)],
)  # fmt: skip
async def test_the_agreement_screen_stays_shut_to_a_non_lead(
    store: Store, corpus: Corpus, monkeypatch: pytest.MonkeyPatch, who: str, why: str
) -> None:
    versions(store)
    app = app_for(store, corpus, who)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("ctrl+o")
        assert app.mode_name == "label" and notes[0].startswith(why)
        await pilot.press("R")  # the label screen's way to a query's agreement
        assert app.mode_name == "label" and len(notes) == 2
    built = AgreementScreen(store, corpus, who, member=app.member, sight=app.sight)
    built.model.load({d.id: len(d.text) for d in corpus})
    assert built.model.rows == [] and built.model.versions == {}


async def test_the_lead_sees_both_versions_then_everyone_may(store: Store, corpus: Corpus) -> None:
    versions(store)
    app = app_for(store, corpus, "rita", screen="agreement")
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, AgreementScreen)
        assert app.screen.query_one(OptionList).option_count == 1
        assert "bob: 1 span(s)" in app.screen.model.describe("q-0001")
        await pilot.press("2")  # keep bob's
    assert store.adjudications("q-0001")[0][:2] == ("keep", ["bob"])
    cat = app_for(store, corpus, "cat")
    assert cat.sight.hidden(store) == frozenset()
    assert cat.sight.refusal(store, "q-0001") is None


async def test_the_review_screen_lists_no_span_of_anothers_undecided_version(
    store: Store, corpus: Corpus
) -> None:
    """billing.md changes under every span: ann is shown her version's span and q-0002's
    own evidence (the project's: decided), not bob's version of q-0001."""
    versions(store)
    changed = Corpus.from_texts(
        {"billing.md": "Intro. " + BILLING, "gifts.txt": corpus.text("gifts.txt")}
    )
    for who, quotes in (("ann", ["Refunds take five days.", "Shipping is free over 50 euros."]),
                        ("rita", ["Refunds take five days.", BOB_QUOTE,
                                  "Shipping is free over 50 euros."])):  # fmt: skip
        app = app_for(store, changed, who, screen="review")
        async with app.run_test(size=(100, 30)):
            assert isinstance(app.screen, ReviewScreen)
            assert [i.span.quote for i in app.screen.items] == quotes


async def test_the_label_screen_opens_only_where_it_reads_the_members_own_version(
    store: Store, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`spanlab review` (or triage) hands over the store as the project's: its label
    screen would show and write the query's own fields, not ann's version."""
    app = app_for(store, corpus, "ann", screen="review")
    async with app.run_test(size=(80, 24)) as pilot:
        notes = record_notes(app, monkeypatch)
        await pilot.press("ctrl+l")
        assert app.mode_name == "review" and notes == [BLIND_LABEL]
    store.view = "ann"  # as `spanlab label` opens it
    app = SpanlabApp(store, corpus, annotator="ann", settings=QUIET, screen="review",
                     member=Member("ann", "ann", TEAM), blind=True)  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+l")
        assert app.mode_name == "label"

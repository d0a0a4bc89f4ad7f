"""The blind rule (§20): who sees another's version, which queries wait for a decision
(a lone version too, and again after a version changes past the decision), and what a
non-lead's agreement and export leave out."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.agreement import agreement_seen
from labeler.core.anchoring import review
from labeler.core.corpus.folder import Corpus
from labeler.core.labels.exports import export_file
from labeler.core.store import Store, Version
from labeler.core.team.roles import Member, Team
from labeler.core.team.visibility import Sight
from labeler.core.values import Query, Span

TEXT = "Refunds: within 30 days. Exchanges: within 60 days."
DOC = "refunds.md"
CORPUS = Corpus.from_texts({DOC: TEXT})
LENGTHS = {DOC: len(TEXT)}
TEAM = Team(("rita",), ("alice", "bob", "carol"))


def sp(start: int, end: int) -> Span:
    return Span.from_text(TEXT, DOC, start, end)


def sight(who: str, *, blind: bool = True, team: Team | None = TEAM) -> Sight:
    return Sight(Member(who, who, team), blind)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """q-0001: alice and bob; q-0002: bob alone; q-0003: the project's own evidence;
    q-0004: alice alone."""
    s = Store.open(tmp_path / "labels.db")
    s.bind(CORPUS.doc_hashes)
    with s.write() as db:
        s.put_queries([Query("q-0001", "Refund window?"), Query("q-0002", "Exchanges?"),
                       Query("q-0003", "Gift cards?", evidence=(sp(0, 7),)),
                       Query("q-0004", "Fees?")], {DOC: TEXT}, db=db)  # fmt: skip
        s.put_versions(
            [("q-0001", Version("alice", False, (sp(9, 23),))),
             ("q-0001", Version("bob", True, ())),
             ("q-0002", Version("bob", False, (sp(25, 50),))),
             ("q-0004", Version("alice", False, (sp(36, 50),)))],
            {DOC: TEXT}, db=db,
        )  # fmt: skip
    return s


@pytest.mark.parametrize(
    ("who", "blind", "team", "sees"),
    [("alice", True, TEAM, False), ("carol", True, TEAM, False), ("eve", True, TEAM, False),
     ("rita", True, TEAM, True), ("alice", False, TEAM, True), ("alice", True, None, True)],
)  # fmt: skip
def test_who_sees_all(who: str, blind: bool, team: Team | None, sees: bool) -> None:
    assert sight(who, blind=blind, team=team).sees_all is sees


def test_a_lone_version_waits_and_a_decision_opens_it_until_it_changes(store: Store) -> None:
    assert store.undecided() == {"q-0001": {"alice", "bob"}, "q-0002": {"bob"},
                                 "q-0004": {"alice"}}  # fmt: skip
    assert sight("alice").hidden(store) == {"q-0001", "q-0002"}
    assert sight("carol").hidden(store) == {"q-0001", "q-0002", "q-0004"}
    assert sight("alice").withheld(store) == {"q-0001", "q-0002", "q-0004"}
    assert sight("rita").hidden(store) == sight("rita").withheld(store) == frozenset()
    seen = store.query("q-0002").revision
    store.adjudicate("q-0002", "send-back", annotator="rita", seen=seen, note="again")
    assert "q-0002" in store.undecided()  # sent back: still waiting
    seen = store.query("q-0002").revision
    store.adjudicate("q-0002", "keep", keep=["bob"], annotator="rita", seen=seen)
    assert "q-0002" not in sight("alice").hidden(store)
    store.view = "bob"
    store.update_query("q-0002", annotator="bob", notes="changed my mind")
    assert "q-0002" in sight("alice").hidden(store)


def test_versions_of_a_hidden_query_are_the_readers_own(store: Store) -> None:
    alice = sight("alice")
    seen = alice.versions(store.versions(), alice.hidden(store))
    assert {q: sorted(v) for q, v in seen.items()} == {
        "q-0001": ["alice"], "q-0002": [], "q-0004": ["alice"]}  # fmt: skip


def test_agreement_counts_what_waits_and_shows_nothing_of_it(store: Store) -> None:
    report = agreement_seen(store, sight("carol"), LENGTHS)
    assert (report.double, report.overall, report.withheld, report.queries) == (0, None, 1, [])
    lead = agreement_seen(store, sight("rita"), LENGTHS)
    assert (lead.double, lead.withheld) == (1, 0)
    assert lead.queries[0].abstain_agree is False


def test_a_non_leads_export_holds_decided_queries_and_counts_the_rest(
    store: Store, tmp_path: Path
) -> None:
    done = export_file(store, CORPUS, tmp_path / "a.json", "spanlab", sight=sight("alice"))
    assert done.queries == 1  # q-0003, the project's own
    why = (
        "quer(y/ies) wait for a decision and are not exported: blind (the project's `blind "
        "= true`) keeps another's version from you until a lead decides the query"
    )
    assert done.left_out == ((why, 3),)
    lead = export_file(store, CORPUS, tmp_path / "r.json", "label-studio", sight=sight("rita"))
    assert lead.queries == 4  # q-0001 as one annotation per version


def test_stale_spans_of_anothers_undecided_version_are_not_listed(store: Store) -> None:
    moved = Corpus.from_texts({DOC: "Note. " + TEXT})
    quotes = {who: [p.span.quote for p in review.pending(store, moved, sight(who))]
              for who in ("alice", "rita")}  # fmt: skip
    assert quotes == {
        "alice": ["Refunds", "within 30 days", "within 60 days"],
        "rita": ["Refunds", "within 30 days", "Exchanges: within 60 days", "within 60 days"],
    }

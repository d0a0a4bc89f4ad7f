"""A version is the whole annotation (§3): each blind annotator's pattern, slices, abstain,
notes and status are their own; a version change moves the query's revision, so a decision
over it is refused saying who changed what; deletes are compare-and-set; merge joins."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from labeler.core.errors import StoreError
from labeler.core.store import Store, Version
from labeler.core.store.conflicts import ConflictError
from labeler.core.store.schema import MIGRATIONS, SCHEMA_VERSION, migrate
from labeler.core.values import Boundary, Span, Status
from tests.core.test_versions import DOC, TEXT, blind


@pytest.fixture
def path(tmp_path: Path) -> Path:
    store = Store.open(tmp_path / "labels.db")
    store.add_query("Refund window?", annotator="lead", slices=("critical",))
    store.add_query("Gift cards?", annotator="lead")
    store.close()
    return tmp_path / "labels.db"


def add(store: Store, start: int, end: int, qid: str = "q-0001") -> Span:
    span = Span.from_text(TEXT, DOC, start, end)
    return store.add_span(qid, span, TEXT, annotator=store.view or "lead")


def test_pattern_slices_notes_and_abstain_are_each_annotators_own(path: Path) -> None:
    alice, bob = blind(path, "alice"), blind(path, "bob")
    seen = alice.query("q-0001")
    assert (seen.status, seen.slices) == (Status.DRAFT, ("critical",))  # starts from the query's
    alice.update_query("q-0001", annotator="alice", seen=seen, boundary=Boundary.CONTROL,
                       notes="clear", slices=("critical", "tables"))  # fmt: skip
    mine = alice.query("q-0001")
    assert (mine.boundary, mine.notes, mine.slices) == (Boundary.CONTROL, "clear",
                                                        ("critical", "tables"))  # fmt: skip
    theirs = bob.query("q-0001")
    assert (theirs.boundary, theirs.notes, theirs.slices) == (Boundary.OTHER, "", ("critical",))
    assert theirs.status == Status.DRAFT  # alice's version is not bob's status
    lead = Store.open(path).query("q-0001")
    assert (lead.boundary, lead.notes) == (Boundary.OTHER, "")  # the query's own is untouched
    rows = {r.id: r for r in alice.query_rows()}
    assert rows["q-0001"].boundary == Boundary.CONTROL
    assert {r.id: r for r in bob.query_rows()}["q-0001"].boundary == Boundary.OTHER


def test_a_second_abstain_clears_it(path: Path) -> None:
    alice = blind(path, "alice")
    alice.update_query("q-0002", annotator="alice", seen=alice.query("q-0002"), abstain=True)
    assert alice.query("q-0002").abstain is True
    alice.update_query("q-0002", annotator="alice", seen=alice.query("q-0002"), abstain=False)
    assert alice.query("q-0002").abstain is False
    assert alice.versions()["q-0002"]["alice"].abstain is False


def test_a_version_is_never_marked_reviewed(path: Path) -> None:
    alice = blind(path, "alice")
    with pytest.raises(StoreError, match="a version is not marked reviewed"):
        alice.update_query("q-0001", annotator="alice", status=Status.REVIEWED)


def test_a_version_change_moves_the_query_revision(path: Path) -> None:
    alice = blind(path, "alice")
    before = Store.open(path).query("q-0001").revision
    alice.update_query("q-0001", annotator="alice", boundary=Boundary.CONTROL)
    assert Store.open(path).query("q-0001").revision == before + 1


def test_a_decision_over_a_version_changed_since_is_refused_with_who_and_what(
    path: Path,
) -> None:
    alice, bob, rita = blind(path, "alice"), blind(path, "bob"), Store.open(path)
    alice.update_query("q-0002", annotator="alice", abstain=True)
    add(bob, 9, 23, "q-0002")
    seen = rita.query("q-0002").revision  # rita reads: alice abstains
    alice.update_query("q-0002", annotator="alice", abstain=False)  # alice un-abstains
    with pytest.raises(ConflictError, match=r"by alice at .*changed abstain in their version"):
        rita.adjudicate("q-0002", "keep", keep=["alice"], annotator="rita", seen=seen)
    assert rita.query("q-0002").status == Status.DRAFT and rita.adjudications("q-0002") == []


def test_a_decision_takes_each_field_from_whom_it_names(path: Path) -> None:
    alice, bob, rita = blind(path, "alice"), blind(path, "bob"), Store.open(path)
    add(alice, 9, 23)
    alice.update_query("q-0001", annotator="alice", boundary=Boundary.CONTROL, notes="a")
    add(bob, 25, 50)
    bob.update_query("q-0001", annotator="bob", boundary=Boundary.HEADING_PARAGRAPH,
                     slices=("tables",), notes="b")  # fmt: skip
    seen = rita.query("q-0001").revision
    fields = {"evidence": "alice", "boundary": "bob", "slices": "merge", "notes": "merge"}
    done = rita.adjudicate("q-0001", "keep", keep=["alice"], annotator="rita", seen=seen,
                           fields=fields, texts={DOC: TEXT})  # fmt: skip
    assert [(s.start, s.end) for s in done.evidence] == [(9, 23)]
    assert done.boundary == Boundary.HEADING_PARAGRAPH
    assert done.slices == ("critical", "tables") and done.notes == "a\nb"
    assert done.status == Status.REVIEWED
    with pytest.raises(StoreError, match="no version of 'carol' to take the boundary"):
        rita.adjudicate("q-0001", "keep", keep=["alice"], annotator="rita",
                        seen=done.revision, fields={"boundary": "carol"})  # fmt: skip


def test_merge_joins_a_sentence_and_the_span_inside_it(tmp_path: Path) -> None:
    text = "x" * 3365 + "A sentence. " * 15 + "y" * 100
    store = Store.open(tmp_path / "labels.db")
    store.add_query("Q?", annotator="lead")
    outer = Span.from_text(text, DOC, 3365, 3541)
    inner = Span.from_text(text, DOC, 3453, 3521)
    with store.write() as db:
        pair = [("q-0001", Version("alice", False, (outer,))),
                ("q-0001", Version("bob", False, (inner,)))]  # fmt: skip
        store.put_versions(pair, {DOC: text}, db=db)
    seen = store.query("q-0001").revision
    done = store.adjudicate("q-0001", "merge", keep=["alice", "bob"], annotator="rita",
                            seen=seen, texts={DOC: text})  # fmt: skip
    assert [(s.start, s.end, s.quote) for s in done.evidence] == [(3365, 3541, text[3365:3541])]
    assert store.last_decided("q-0001") == [
        f"{DOC}: 3365..3541 and 3453..3521 joined into 3365..3541"
    ]


def test_deleting_a_query_changed_since_is_refused_saying_who(path: Path) -> None:
    alice, bob = Store.open(path), Store.open(path)
    seen = alice.query("q-0001")
    add(bob, 9, 23)
    bob.update_query("q-0001", annotator="bob", text="Refund window, days?")
    with pytest.raises(ConflictError, match="changed by bob"):
        alice.delete_query("q-0001", annotator="alice", seen=seen)
    assert len(alice.query("q-0001").evidence) == 1


def test_a_blind_annotator_cannot_delete_anothers_version(path: Path) -> None:
    alice, bob = blind(path, "alice"), blind(path, "bob")
    add(bob, 9, 23)
    with pytest.raises(ConflictError, match="holds bob's version; a blind annotator") as info:
        alice.delete_query("q-0001", annotator="alice", seen=alice.query("q-0001"))
    assert "blind = true" in (info.value.hint or "")
    assert bob.versions()["q-0001"]["bob"].spans


def test_a_blind_annotator_may_not_open_a_query_they_annotated_until_decided(
    path: Path,
) -> None:
    alice, bob, rita = blind(path, "alice"), blind(path, "bob"), Store.open(path)
    add(alice, 9, 23)
    add(bob, 25, 50)
    assert "closed to you until it is decided" in (alice.blind_refusal("q-0001") or "")
    with pytest.raises(StoreError, match="annotated it blind") as info:
        alice.adjudicate("q-0001", "send-back", annotator="alice",
                         seen=alice.query("q-0001").revision)  # fmt: skip
    assert "blind = true" in (info.value.hint or "")
    rita.adjudicate("q-0001", "keep", keep=["bob"], annotator="rita",
                    seen=rita.query("q-0001").revision, texts={DOC: TEXT})  # fmt: skip
    assert alice.blind_refusal("q-0001") is None


def test_migration_gives_existing_versions_the_fields_they_shared(tmp_path: Path) -> None:
    path = tmp_path / "labels.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for step in MIGRATIONS[:3]:  # the schema before versions held the whole annotation
        step(conn)
    conn.execute("PRAGMA user_version = 3")
    conn.execute(
        "INSERT INTO queries(id, text, abstain, boundary, slices, notes, status, annotator, "
        "created, updated) VALUES ('q-0001', 'Refund?', 0, 'control', ?, 'shared', "
        "'labelled', 'lead', 't', 't')",
        (json.dumps(["critical"]),),
    )
    conn.execute("INSERT INTO versions VALUES ('q-0001', 'alice', 1, 't')")
    assert migrate(conn, path=str(path)) == 3
    conn.close()
    store = Store.open(path)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    v = store.versions()["q-0001"]["alice"]
    assert (v.abstain, v.boundary, v.slices, v.notes, v.status) == (
        True, Boundary.CONTROL, ("critical",), "shared", Status.LABELLED)  # fmt: skip
    store.view = "alice"
    assert store.query("q-0001").boundary == Boundary.CONTROL


def test_a_send_back_reaches_each_blind_version_as_a_draft_with_the_note(path: Path) -> None:
    alice, bob, rita = blind(path, "alice"), blind(path, "bob"), Store.open(path)
    add(alice, 9, 23)
    add(bob, 25, 50)
    rita.adjudicate("q-0001", "send-back", note="too wide", annotator="rita",
                    seen=rita.query("q-0001").revision)  # fmt: skip
    for who in (alice, bob):
        mine = who.query("q-0001")
        assert (mine.status, mine.notes) == (Status.DRAFT, "sent back by rita: too wide")
    assert len(alice.query("q-0001").evidence) == 1  # her evidence stays hers to mend


def test_a_version_only_begun_is_not_labelled(path: Path) -> None:
    alice = blind(path, "alice")
    alice.update_query("q-0001", annotator="alice", boundary=Boundary.CONTROL)
    assert alice.next_unlabelled("alice") == "q-0001"  # a pattern alone labels nothing
    add(alice, 9, 23)
    assert alice.next_unlabelled("alice", "q-0001") == "q-0002"


def test_a_single_version_is_exported_whole(path: Path) -> None:
    alice = blind(path, "alice")
    add(alice, 9, 23)
    alice.update_query("q-0001", annotator="alice", boundary=Boundary.CONTROL, notes="mine")
    decided, waiting = Store.open(path).decided_queries()
    [q] = [q for q in decided if q.id == "q-0001"]
    assert waiting == [] and (q.boundary, q.notes, len(q.evidence)) == (Boundary.CONTROL, "mine", 1)


def test_progress_counts_a_blind_annotators_labelled_versions_in_her_queue(path: Path) -> None:
    """Counted in SQL (issue 45, 100k stores): only her labelled versions, only in scope."""
    alice, bob = blind(path, "alice"), blind(path, "bob")
    alice.update_query("q-0001", annotator="alice", boundary=Boundary.CONTROL)  # only begun
    alice.update_query("q-0002", annotator="alice", abstain=True)
    assert alice.progress("alice", "9999-01-01") == (1, 2, 0, None)
    assert bob.progress("bob", "9999-01-01") == (0, 2, 0, None)
    add(alice, 0, 6)  # a span labels q-0001 too
    assert alice.progress("alice", "9999-01-01") == (2, 2, 0, None)
    Store.open(path).assign([("q-0002", "alice"), ("q-0001", "bob")], by="lead")
    assert alice.progress("alice", "9999-01-01") == (1, 1, 0, None)
    assert bob.progress("bob", "9999-01-01") == (0, 1, 0, None)
    assert alice.next_unlabelled("alice") is None

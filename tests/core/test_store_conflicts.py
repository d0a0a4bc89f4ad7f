"""Compare-and-set (§3): every edit names what it was based on, and a change made since
by someone else is refused with who, what and when, writing nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.store import Store
from labeler.core.store.conflicts import ConflictError
from labeler.core.values import Span
from tests.conftest import table_dump

TEXT = "Refunds: within 30 days. Exchanges: within 60 days. " * 3
DOC = "policies/refunds.md"


@pytest.fixture
def two(tmp_path: Path) -> tuple[Store, Store]:
    """Alice's and Bob's connections to one database file."""
    path = tmp_path / "labels.db"
    return Store.open(path), Store.open(path)


def test_a_form_save_writes_only_the_fields_changed(two: tuple[Store, Store]) -> None:
    alice, bob = two
    q = alice.add_query("Refund window?", annotator="alice")
    bob_saw = bob.query(q.id)
    alice.update_query(q.id, annotator="alice", seen=alice.query(q.id), slices=("critical",))
    bob.update_query(q.id, annotator="bob", seen=bob_saw, notes="checked")
    now = alice.query(q.id)
    assert (now.slices, now.notes) == (("critical",), "checked")
    assert now.revision == 3


def test_a_save_of_a_field_changed_since_is_refused_naming_who(
    two: tuple[Store, Store],
) -> None:
    alice, bob = two
    q = alice.add_query("Refund window?", annotator="alice")
    bob_saw = bob.query(q.id)
    alice.update_query(q.id, annotator="alice", seen=alice.query(q.id), slices=("critical",))
    before = table_dump(bob)
    with pytest.raises(ConflictError) as caught:
        bob.update_query(q.id, annotator="bob", seen=bob_saw, slices=("tables",), notes="x")
    err = caught.value
    assert (err.query_id, err.what, err.who) == (q.id, "slices", "alice")
    assert err.at.startswith("20")
    assert "slices was changed by alice at" in err.message
    assert "you saw [], it is now [critical]" in err.message
    assert table_dump(bob) == before


def test_a_save_without_seen_is_a_reapply(two: tuple[Store, Store]) -> None:
    alice, bob = two
    q = alice.add_query("Refund window?", annotator="alice")
    alice.update_query(q.id, annotator="alice", slices=("critical",))
    assert bob.update_query(q.id, annotator="bob", slices=("tables",)).slices == ("tables",)


def test_a_save_of_a_deleted_query_says_who_deleted_it(two: tuple[Store, Store]) -> None:
    alice, bob = two
    q = alice.add_query("Refund window?", annotator="alice")
    bob_saw = bob.query(q.id)
    alice.delete_query(q.id, annotator="alice")
    with pytest.raises(ConflictError, match=r"q-0001 was deleted by alice at"):
        bob.update_query(q.id, annotator="bob", seen=bob_saw, notes="x")


def _span(store: Store, qid: str, start: int, end: int) -> int:
    span = store.add_span(qid, Span.from_text(TEXT, DOC, start, end), TEXT, annotator="alice")
    assert span.id is not None
    return span.id


def test_a_span_move_from_edges_that_moved_is_refused(two: tuple[Store, Store]) -> None:
    alice, bob = two
    q = alice.add_query("Refund window?", annotator="alice")
    sid = _span(alice, q.id, 9, 23)
    alice.update_span(sid, 9, 22, TEXT, annotator="alice", expected=(9, 23))
    with pytest.raises(ConflictError) as caught:
        bob.update_span(sid, 10, 23, TEXT, annotator="bob", expected=(9, 23))
    assert caught.value.who == "alice"
    assert "you saw 9..23, it is now 9..22" in caught.value.message
    assert (bob.span(sid)[1].start, bob.span(sid)[1].end) == (9, 22)
    bob.update_span(sid, 10, 22, TEXT, annotator="bob", expected=(9, 22))
    assert bob.query(q.id).revision == 4  # created, span added, two moves


def test_a_span_delete_of_moved_edges_is_refused(two: tuple[Store, Store]) -> None:
    alice, bob = two
    q = alice.add_query("Refund window?", annotator="alice")
    sid = _span(alice, q.id, 9, 23)
    alice.update_span(sid, 9, 22, TEXT, annotator="alice", expected=(9, 23))
    with pytest.raises(ConflictError, match="changed by alice"):
        bob.delete_span(sid, annotator="bob", expected=(9, 23))
    assert len(bob.query(q.id).evidence) == 1


def test_a_move_of_a_deleted_span_says_who_deleted_it(two: tuple[Store, Store]) -> None:
    alice, bob = two
    q = alice.add_query("Refund window?", annotator="alice")
    sid = _span(alice, q.id, 9, 23)
    alice.delete_span(sid, annotator="alice")
    with pytest.raises(ConflictError, match=f"span {sid} was deleted by alice"):
        bob.update_span(sid, 10, 23, TEXT, annotator="bob", expected=(9, 23))


def test_a_delete_of_a_query_changed_since_is_refused(two: tuple[Store, Store]) -> None:
    alice, bob = two
    q = alice.add_query("Refund window?", annotator="alice")
    bob_saw = bob.query(q.id)
    _span(alice, q.id, 9, 23)
    with pytest.raises(ConflictError, match="its evidence was changed by alice"):
        bob.delete_query(q.id, annotator="bob", seen=bob_saw)
    assert len(bob.query(q.id).evidence) == 1


def test_a_stale_delete_of_a_query_whose_version_changed_since_is_refused(
    two: tuple[Store, Store],
) -> None:
    """Issue 28 (7): the lead's screen read the query, then alice added a span to her blind
    version; the delete (which takes every version with it) is refused, naming her."""
    lead, alice = two
    alice.view = "alice"
    q = lead.add_query("Refund window?", annotator="lead")
    lead_saw = lead.query(q.id)
    alice.add_span(q.id, Span.from_text(TEXT, DOC, 9, 23), TEXT, annotator="alice")
    before = table_dump(lead)
    with pytest.raises(ConflictError) as caught:
        lead.delete_query(q.id, annotator="lead", seen=lead_saw)
    assert caught.value.message.startswith(
        "q-0001 changed since you read it (revision 1, now 2) and holds alice's version, "
        "last changed at "
    )
    assert caught.value.message.endswith(" UTC; nothing was deleted")
    assert (caught.value.who, caught.value.what) == ("alice", "alice's version")
    assert table_dump(lead) == before
    lead.delete_query(q.id, annotator="lead", seen=lead.query(q.id))
    assert lead.count("queries") == 0

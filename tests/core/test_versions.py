"""Double annotation (§3): blind versions per annotator, queues, the next unlabelled query."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.errors import LabelError, StoreError
from labeler.core.labels.assign import plan
from labeler.core.store import Store
from labeler.core.values import Span

TEXT = "Refunds: within 30 days. Exchanges: within 60 days."
DOC = "policies/refunds.md"


def blind(path: Path, who: str) -> Store:
    store = Store.open(path)
    store.view = who
    return store


@pytest.fixture
def path(tmp_path: Path) -> Path:
    store = Store.open(tmp_path / "labels.db")
    for text in ("Refund window?", "Exchange window?", "Gift cards?"):
        store.add_query(text, annotator="lead", slices=("critical",) if "window" in text else ())
    return tmp_path / "labels.db"


def add(store: Store, start: int, end: int, qid: str = "q-0001") -> Span:
    who = store.view
    return store.add_span(qid, Span.from_text(TEXT, DOC, start, end), TEXT, annotator=who)


def test_each_annotator_sees_only_their_own_version(path: Path) -> None:
    alice, bob = blind(path, "alice"), blind(path, "bob")
    add(alice, 9, 23)
    add(bob, 9, 23)  # the same offsets in another version are no duplicate
    add(bob, 25, 50)
    assert [(s.start, s.end) for s in alice.query("q-0001").evidence] == [(9, 23)]
    assert [(s.start, s.end) for s in bob.query("q-0001").evidence] == [(9, 23), (25, 50)]
    assert Store.open(path).query("q-0001").evidence == ()  # no adjudicated evidence yet
    assert [r.spans for r in alice.query_rows()] == [1, 0, 0]
    with pytest.raises(StoreError, match="not adding it twice"):
        add(alice, 9, 23)


def test_versions_are_read_per_annotator_with_abstentions(path: Path) -> None:
    alice, bob = blind(path, "alice"), blind(path, "bob")
    add(alice, 9, 23)
    bob.update_query("q-0001", annotator="bob", abstain=True)
    versions = Store.open(path).versions()
    assert sorted(versions) == ["q-0001"]
    got = versions["q-0001"]
    assert (got["alice"].abstain, [(s.start, s.end) for s in got["alice"].spans]) == (
        False,
        [(9, 23)],
    )
    assert (got["bob"].abstain, got["bob"].spans) == (True, ())
    assert Store.open(path).query("q-0001").abstain is False  # the query's own flag stays


def test_assignment_round_robin_and_by_slice(path: Path) -> None:
    store = Store.open(path)
    rows = store.query_rows()
    assert plan(rows, ["alice", "bob"]) == [
        ("q-0001", "alice"), ("q-0002", "bob"), ("q-0003", "alice"),
    ]  # fmt: skip
    double = plan(rows, ["alice", "bob"], copies=2, slice_name="critical")
    assert double == [
        ("q-0001", "alice"), ("q-0001", "bob"), ("q-0002", "bob"), ("q-0002", "alice"),
    ]  # fmt: skip
    assert store.assign(double, by="lead") == 4
    assert store.assign(double, by="lead") == 0
    assert store.queue("alice") == ["q-0001", "q-0002"]
    with pytest.raises(LabelError, match="--copies must be between 1 and the 2"):
        plan(rows, ["alice", "bob"], copies=3)
    with pytest.raises(LabelError, match="no queries in slice 'nope'"):
        plan(rows, ["alice"], slice_name="nope")
    with pytest.raises(StoreError, match="no query 'q-0404'"):
        store.assign([("q-0404", "alice")], by="lead")


def test_next_unlabelled_walks_the_queue_and_wraps(path: Path) -> None:
    alice = blind(path, "alice")
    alice.assign([("q-0001", "alice"), ("q-0003", "alice")], by="lead")
    assert alice.next_unlabelled("alice") == "q-0001"
    add(alice, 9, 23)
    assert alice.next_unlabelled("alice", "q-0001") == "q-0003"
    assert alice.next_unlabelled("bob") == "q-0001"  # no queue: every query
    alice.update_query("q-0003", annotator="alice", abstain=True)
    assert alice.next_unlabelled("alice", "q-0003") is None


def test_next_unlabelled_without_blind_mode_reads_the_queries(path: Path) -> None:
    store = Store.open(path)
    add(store, 9, 23)
    assert store.next_unlabelled("ann") == "q-0002"
    assert store.next_unlabelled("ann", "q-0002") == "q-0003"


def test_progress_counted_apart_agrees_with_the_stores_own(path: Path) -> None:
    """`apart` counts on a read-only connection of its own (for the app's thread): the
    same figures, a blind version's and a queue's included; in memory, on its own one."""
    alice = blind(path, "alice")
    add(alice, 9, 23)
    assert alice.progress("alice", "2000-01-01", apart=True)[:3] == (1, 3, 1)
    assert alice.progress("alice", "2000-01-01", apart=True) == alice.progress(
        "alice", "2000-01-01")  # fmt: skip
    alice.assign([("q-0002", "alice")], by="lead")
    assert alice.progress("alice", "9999-01-01", apart=True) == (0, 1, 0, None)
    memory = Store.memory()
    memory.add_query("Refund window?", annotator="ann", abstain=True)
    assert memory.progress("ann", "9999-01-01", apart=True) == (1, 1, 0, None)

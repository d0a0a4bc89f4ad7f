"""A merge of versions that use groups of alternatives (§18, §3): group numbers are each
annotator's own, so alice's group 1 and bob's group 1 stay two facts unless they hold the
same places; the same alternatives drawn by both stay one group through the join."""

from __future__ import annotations

from pathlib import Path

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store, Version
from labeler.core.values import Query, Span

TEXT = "Refunds take 30 days. Exchanges take 60 days.\n"
TEXTS = {"a.md": TEXT, "b.md": TEXT}
CORPUS = Corpus.from_texts(TEXTS)
REFUNDS, EXCHANGES = (0, 21), (22, 45)


def alt(doc: str, edges: tuple[int, int], group: int | None) -> Span:
    span = Span.from_text(TEXT, doc, *edges)
    return Span(**{**span.__dict__, "group": group})


def merged(tmp_path: Path, alice: tuple[Span, ...], bob: tuple[Span, ...]) -> Query:
    store = Store.open(tmp_path / "labels.db")
    store.bind(CORPUS.doc_hashes)
    with store.write() as db:
        store.put_queries([Query("q-0001", "Refunds and exchanges?")], TEXTS, db=db)
        store.put_versions([("q-0001", Version("alice", False, alice)),
                            ("q-0001", Version("bob", False, bob))], TEXTS, db=db)  # fmt: skip
    seen = store.query("q-0001").revision
    return store.adjudicate("q-0001", "merge", keep=["alice", "bob"], annotator="rita", seen=seen)


def groups(q: Query) -> set[frozenset[tuple[str, int, int]]]:
    """The merged evidence as sets of places, one per group (a span of its own alone)."""
    by: dict[object, set[tuple[str, int, int]]] = {}
    for s in q.evidence:
        by.setdefault(s.group if s.group is not None else (s.doc, s.start), set()).add(
            (s.doc, s.start, s.end)
        )
    return {frozenset(g) for g in by.values()}


def test_two_annotators_group_1_are_two_facts(tmp_path: Path) -> None:
    alice = (alt("a.md", REFUNDS, 1), alt("b.md", REFUNDS, 1))
    bob = (alt("a.md", EXCHANGES, 1), alt("b.md", EXCHANGES, 1))
    q = merged(tmp_path, alice, bob)
    assert groups(q) == {
        frozenset({("a.md", 0, 21), ("b.md", 0, 21)}),
        frozenset({("a.md", 22, 45), ("b.md", 22, 45)}),
    }
    assert len({s.group for s in q.evidence}) == 2


def test_the_same_alternatives_from_both_stay_one_group(tmp_path: Path) -> None:
    alice = (alt("a.md", REFUNDS, 1), alt("b.md", REFUNDS, 1))
    bob = (alt("a.md", REFUNDS, 2), alt("b.md", REFUNDS, 2), alt("a.md", EXCHANGES, None))
    q = merged(tmp_path, alice, bob)
    assert groups(q) == {
        frozenset({("a.md", 0, 21), ("b.md", 0, 21)}),
        frozenset({("a.md", 22, 45)}),
    }
    assert [s.group is None for s in q.evidence].count(True) == 1


def test_a_join_that_widens_an_alternative_leaves_its_group(tmp_path: Path) -> None:
    alice = (alt("a.md", REFUNDS, 1), alt("b.md", REFUNDS, 1))
    bob = (alt("a.md", (0, 45), None),)  # wider than alice's copy in a.md: its quote differs
    q = merged(tmp_path, alice, bob)
    assert groups(q) == {frozenset({("a.md", 0, 45)}), frozenset({("b.md", 0, 21)})}


def test_a_copy_drawn_alone_by_the_other_keeps_the_group(tmp_path: Path) -> None:
    alice = (alt("a.md", REFUNDS, 1), alt("b.md", REFUNDS, 1))
    bob = (alt("a.md", REFUNDS, None),)  # bob found one copy and did not group it
    q = merged(tmp_path, alice, bob)
    assert groups(q) == {frozenset({("a.md", 0, 21), ("b.md", 0, 21)})}


def test_groups_that_share_a_copy_become_one(tmp_path: Path) -> None:
    c = Corpus.from_texts({**TEXTS, "c.md": TEXT})
    alice = (alt("a.md", REFUNDS, 1), alt("b.md", REFUNDS, 1))
    bob = (alt("a.md", REFUNDS, 1), alt("c.md", REFUNDS, 1))
    store = Store.open(tmp_path / "labels.db")
    store.bind(c.doc_hashes)
    texts = {**TEXTS, "c.md": TEXT}
    with store.write() as db:
        store.put_queries([Query("q-0001", "Refunds?")], texts, db=db)
        store.put_versions([("q-0001", Version("alice", False, alice)),
                            ("q-0001", Version("bob", False, bob))], texts, db=db)  # fmt: skip
    seen = store.query("q-0001").revision
    q = store.adjudicate("q-0001", "merge", keep=["alice", "bob"], annotator="rita", seen=seen)
    assert groups(q) == {frozenset({("a.md", 0, 21), ("b.md", 0, 21), ("c.md", 0, 21)})}

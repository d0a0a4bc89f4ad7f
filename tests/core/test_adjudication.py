"""Adjudication (§3, §11): keep one version, merge, or send back; one transaction each with
who and when; a racing decision is refused; export uses only decided evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import StoreError
from labeler.core.labels import labelset
from labeler.core.store import Store, Version
from labeler.core.store.conflicts import ConflictError
from labeler.core.values import Query, Span

TEXT = "Refunds: within 30 days. Exchanges: within 60 days."
DOC = "refunds.md"
CORPUS = Corpus.from_texts({DOC: TEXT})


def sp(start: int, end: int) -> Span:
    return Span.from_text(TEXT, DOC, start, end)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    store = Store.open(tmp_path / "labels.db")
    store.bind(CORPUS.doc_hashes)
    with store.write() as db:
        store.put_queries([Query("q-0001", "Refund window?"), Query("q-0002", "Exchanges?"),
                           Query("q-0003", "Gift cards?")], {DOC: TEXT}, db=db)  # fmt: skip
        store.put_versions(
            [("q-0001", Version("alice", False, (sp(9, 23),))),
             ("q-0001", Version("bob", False, (sp(0, 23), sp(36, 50)))),
             ("q-0002", Version("alice", False, (sp(25, 50),)))],
            {DOC: TEXT}, db=db,
        )  # fmt: skip
    store.close()
    return tmp_path / "labels.db"


def edges(q: Query) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in q.evidence]


def test_keep_one_version_writes_it_as_the_evidence(path: Path) -> None:
    store = Store.open(path)
    seen = store.query("q-0001").revision
    kept = store.adjudicate("q-0001", "keep", keep=["bob"], annotator="rita", seen=seen)
    assert edges(kept) == [(0, 23), (36, 50)]
    assert kept.status == "reviewed"
    decision, versions, _, who, at = store.adjudications("q-0001")[0]
    assert (decision, versions, who) == ("keep", ["bob"], "rita") and at.startswith("20")
    assert store.waiting() == []


def test_merge_joins_nested_spans_and_says_so(path: Path) -> None:
    store = Store.open(path)
    seen = store.query("q-0001").revision
    merged = store.adjudicate("q-0001", "merge", keep=["alice", "bob"], annotator="rita", seen=seen)
    assert edges(merged) == [(0, 23), (36, 50)]  # alice's 9..23 lies inside bob's 0..23
    assert store.last_decided("q-0001") == ["refunds.md: 0..23 and 9..23 joined into 0..23"]


def test_send_back_keeps_waiting_with_a_note(path: Path) -> None:
    store = Store.open(path)
    seen = store.query("q-0001").revision
    back = store.adjudicate("q-0001", "send-back", note="too wide", annotator="rita", seen=seen)
    assert back.status == "draft" and "sent back by rita: too wide" in back.notes
    assert store.waiting() == ["q-0001"]


def test_a_racing_adjudication_is_refused(path: Path) -> None:
    rita, sam = Store.open(path), Store.open(path)
    seen = rita.query("q-0001").revision
    rita.adjudicate("q-0001", "keep", keep=["alice"], annotator="rita", seen=seen)
    with pytest.raises(ConflictError, match=r"changed since you looked by rita at .* \(keep\)"):
        sam.adjudicate("q-0001", "keep", keep=["bob"], annotator="sam", seen=seen)
    assert edges(sam.query("q-0001")) == [(9, 23)]


def test_keeping_a_version_that_does_not_exist_is_refused(path: Path) -> None:
    store = Store.open(path)
    seen = store.query("q-0001").revision
    with pytest.raises(StoreError, match="no version of carol"):
        store.adjudicate("q-0001", "keep", keep=["carol"], annotator="rita", seen=seen)
    assert store.adjudications("q-0001") == []


def test_export_uses_decided_and_single_versions_and_counts_the_waiting(path: Path) -> None:
    store = Store.open(path)
    data = labelset.export(store, CORPUS)
    assert data["waiting_for_adjudication"] == 1
    by_id = {q["id"]: q for q in data["queries"]}
    assert sorted(by_id) == ["q-0002", "q-0003"]  # q-0001 waits
    assert [(e["start"], e["end"]) for e in by_id["q-0002"]["evidence"]] == [(25, 50)]
    seen = store.query("q-0001").revision
    store.adjudicate("q-0001", "keep", keep=["alice"], annotator="rita", seen=seen)
    data = labelset.export(store, CORPUS)
    assert data["waiting_for_adjudication"] == 0
    assert [(e["start"], e["end"]) for e in data["queries"][0]["evidence"]] == [(9, 23)]

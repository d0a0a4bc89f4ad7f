"""The stale-span review on the demo: corpus swapped for corpus-v2, decisions by hand.

Expected offsets come from data/demo/corpus-v2-expected.json (what a careful reviewer
decides); the small in-memory corpora at the end have offsets counted by hand.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from labeler.core.anchoring import review
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.labels import labelset
from labeler.core.resources import bundled
from labeler.core.store import Store
from labeler.core.values import Span, SpanState
from tests.conftest import write_demo_project
from tests.stores import copy_store

TABLES = ("meta", "bound_documents", "doc_texts", "queries", "spans", "review_decisions")
Key = tuple[str, str, int, int]


@dataclass(frozen=True)
class Demo:
    store: Store
    """A store bound to the demo corpus, holding labels.json."""
    old: Corpus
    """data/demo/corpus."""
    new: Corpus
    """data/demo/corpus-v2."""
    expected: dict[str, Any]
    """corpus-v2-expected.json."""

    def entries(self) -> dict[Key, dict[str, Any]]:
        """Expected entries for the spans that must be reviewed."""
        return {
            (e["query"], e["doc"], e["old_start"], e["old_end"]): e
            for e in self.expected["spans"]
            if e["case"] != "unchanged-in-changed-doc"
        }

    def span_id(self, query: str, doc: str, start: int) -> int:
        for qid, span in self.store.spans():
            if (qid, span.doc, span.start) == (query, doc, start):
                assert span.id is not None
                return span.id
        raise AssertionError(f"no span {query} {doc} {start}")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo bound to corpus v1 with labels.json imported, built once per module."""
    root = write_demo_project(tmp_path_factory.mktemp("demo"))
    shutil.copyfile(bundled("data/demo") / "corpus-v2-expected.json", root / "expected.json")
    return root


@pytest.fixture
def demo(template: Path, tmp_path: Path) -> Demo:
    copy_store(template / "labels.db", tmp_path / "labels.db")
    expected = json.loads((template / "expected.json").read_text(encoding="utf-8"))
    return Demo(
        Store.open(tmp_path / "labels.db"),
        Corpus.read(template / "corpus"),
        Corpus.read(template / "corpus-v2"),
        expected,
    )


def dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    return {
        t: [tuple(r) for r in store.conn.execute(f"SELECT * FROM {t} ORDER BY 1")] for t in TABLES
    }


def key(p: review.PendingSpan) -> Key:
    return (p.query_id, p.span.doc, p.span.start, p.span.end)


def test_swapping_the_corpus_sends_exactly_the_affected_spans_to_review(demo: Demo) -> None:
    items = review.pending(demo.store, demo.new)
    assert len(items) == 32
    assert {key(p) for p in items} == set(demo.entries())
    assert {p.state for p in items} == {SpanState.STALE}
    first = items[0]
    assert (first.query_id, first.span.doc, first.span.start) == ("q-0046", "api/reference.md", 263)
    assert first.old_text == demo.old.text("api/reference.md")
    assert first.new_text == demo.new.text("api/reference.md")
    assert first.question == demo.store.query("q-0046").text


def test_the_best_candidate_is_what_a_careful_reviewer_picks(demo: Demo) -> None:
    entries = demo.entries()
    wrong = []
    for item in review.proposals(demo.store, demo.new):
        want = [(x["start"], x["end"]) for x in entries[key(item.pending)]["expected"]]
        got = [(c.start, c.end) for c in item.proposal.candidates]
        if (got[:1] != want[:1]) or (not want and not item.proposal.orphaned):
            wrong.append((key(item.pending), want, got))
    assert wrong == []


def test_each_case_gets_its_kind_of_candidate(demo: Demo) -> None:
    by_case: dict[str, list[list[tuple[str, int, int]]]] = {}
    for item in review.proposals(demo.store, demo.new):
        case = demo.entries()[key(item.pending)]["case"]
        by_case.setdefault(case, []).append(
            [(c.kind, c.start, c.end) for c in item.proposal.candidates]
        )
    assert by_case["deleted"] == [[]]
    assert by_case["reworded"] == [[("fuzzy", 1768, 1858)]]
    assert by_case["number-changed"] == [[("fuzzy", 1427, 1693)]]
    assert all(len(c) == 1 and c[0][0] == "exact" for c in by_case["moved"])


def test_a_repeated_clause_yields_two_candidates_and_neither_is_applied(demo: Demo) -> None:
    before = dump(demo.store)
    items = review.proposals(demo.store, demo.new)
    (trap,) = [i for i in items if i.pending.query_id == "q-0058"]
    places = [(c.kind, c.start, c.end) for c in trap.proposal.candidates]
    assert places == [("exact", 2633, 2739), ("exact", 760, 866)]
    assert trap.proposal.candidates[0].quote == trap.proposal.candidates[1].quote
    assert trap.proposal.candidates[0].quote == trap.pending.span.quote
    assert not trap.proposal.orphaned
    assert dump(demo.store) == before
    assert len(review.pending(demo.store, demo.new)) == 32


def test_listing_applies_nothing_not_even_a_unique_exact_match(demo: Demo) -> None:
    before = dump(demo.store)
    review.pending(demo.store, demo.new)
    review.proposals(demo.store, demo.new)
    review.summary(demo.store, demo.new)
    assert dump(demo.store) == before


def test_proposed_json_carries_the_fields_of_section_8(demo: Demo) -> None:
    item = review.proposals(demo.store, demo.new)[0]
    assert review.proposed_json(item) == {
        "query": "q-0046",
        "span": item.pending.span_id,
        "doc": "api/reference.md",
        "start": 263,
        "end": 347,
        "quote": demo.old.text("api/reference.md")[263:347],
        "state": "stale",
        "candidates": [
            {
                "start": 489,
                "end": 573,
                "kind": "exact",
                "score": 1.0,
                "parts": {"quote": 1.0, "prefix": 1.0, "suffix": 1.0, "distance": 1.0},
            }
        ],
        "orphan_proposed": False,
        "reason": item.proposal.reason,  # anchoring's own words, tested there
    }


def test_summary_counts_what_waits(demo: Demo) -> None:
    s = review.summary(demo.store, demo.new)
    assert (s.stale, s.orphaned, s.waiting) == (32, 0, 32)
    assert s.documents == tuple(demo.expected["changed_documents"])
    assert s.describe() == (
        "32 span(s) wait for review (32 stale, 0 orphaned) in 6 document(s): run `spanlab review`"
    )
    assert review.summary(demo.store, demo.old).describe() == "no span waits for review"


def test_accept_moves_one_span_and_records_one_decision(demo: Demo) -> None:
    sid = demo.span_id("q-0046", "api/reference.md", 263)
    before = dump(demo.store)
    out = review.accept(demo.store, demo.new, sid, 489, 573, annotator="ana")
    after = dump(demo.store)
    changed = [r for r in after["spans"] if r not in before["spans"]]
    assert [r[0] for r in changed] == [sid]
    assert len(after["spans"]) == len(before["spans"])
    text = demo.new.text("api/reference.md")
    moved = demo.store.span(sid)[1]
    assert (moved.start, moved.end, moved.quote) == (489, 573, text[489:573])
    assert (moved.prefix, moved.suffix) == (text[457:489], text[573:605])
    assert moved.doc_hash == demo.new.documents["api/reference.md"].hash
    assert demo.store.doc_text(moved.doc_hash) == text
    d = out.decision
    assert (d.kind, d.span_id, d.query_id, d.doc) == ("accept", sid, "q-0046", "api/reference.md")
    assert (d.old_start, d.old_end, d.new_start, d.new_end) == (263, 347, 489, 573)
    assert d.old_quote == demo.old.text("api/reference.md")[263:347]
    assert (d.old_corpus_hash, d.new_corpus_hash) == (
        demo.expected["old_corpus_hash"],
        demo.expected["new_corpus_hash"],
    )
    assert d.annotator == "ana" and d.at.endswith("Z")
    assert review.decisions(demo.store) == [d]
    assert (out.span, out.waiting, out.rebound) == (moved, 31, False)
    assert demo.store.corpus_hash == demo.expected["old_corpus_hash"]


def test_accept_takes_hand_adjusted_edges(demo: Demo) -> None:
    sid = demo.span_id("q-0053", "policies/shipping.md", 1768)
    out = review.accept(demo.store, demo.new, sid, 1770, 1850, annotator="ana")
    assert out.span is not None
    assert out.span.quote == demo.new.text("policies/shipping.md")[1770:1850]
    assert (out.decision.new_start, out.decision.new_end) == (1770, 1850)


def test_bad_decisions_write_nothing(demo: Demo) -> None:
    sid = demo.span_id("q-0046", "api/reference.md", 263)
    valid = demo.span_id("q-0050", "help/account-security.md", 245)
    before = dump(demo.store)
    with pytest.raises(LabelError, match="out of range"):
        review.accept(demo.store, demo.new, sid, 489, 10**6, annotator="ana")
    with pytest.raises(StoreError, match="valid in the corpus"):
        review.accept(demo.store, demo.new, valid, 245, 291, annotator="ana")
    with pytest.raises(StoreError, match="valid in the corpus"):
        review.orphan(demo.store, demo.new, valid, annotator="ana")
    with pytest.raises(StoreError, match="no span"):
        review.orphan(demo.store, demo.new, 10**6, annotator="ana")
    assert dump(demo.store) == before


def test_orphan_deletes_one_span_and_keeps_it_in_the_decision(demo: Demo) -> None:
    sid = demo.span_id("q-0052", "help/account-security.md", 1141)
    query_id, old = demo.store.span(sid)
    before = dump(demo.store)
    out = review.orphan(demo.store, demo.new, sid, annotator="ben")
    after = dump(demo.store)
    assert [r for r in before["spans"] if r not in after["spans"]] == [
        next(r for r in before["spans"] if r[0] == sid)
    ]
    assert len(after["spans"]) == len(before["spans"]) - 1
    d = out.decision
    assert (d.kind, d.query_id, d.old_start, d.old_end, d.old_quote) == (
        "orphan",
        query_id,
        1141,
        1182,
        old.quote,
    )
    assert (d.new_start, d.new_end, d.annotator) == (None, None, "ben")
    assert (out.span, out.waiting, out.rebound) == (None, 31, False)


def test_undo_of_an_orphan_restores_the_span_exactly(demo: Demo) -> None:
    sid = demo.span_id("q-0052", "help/account-security.md", 1141)
    before = dump(demo.store)
    made = review.orphan(demo.store, demo.new, sid, annotator="ben").decision
    out = review.undo(demo.store, demo.new, made.id, annotator="ben")
    after = dump(demo.store)
    assert after["spans"] == before["spans"]
    assert [d.kind for d in review.decisions(demo.store)] == ["orphan", "undo"]
    u = out.decision
    assert (u.span_id, u.old_start, u.old_end, u.new_start, u.new_end) == (
        sid,
        1141,
        1182,
        None,
        None,
    )
    assert out.waiting == 32 and out.span == demo.store.span(sid)[1]


def test_undo_of_an_accept_restores_the_span_exactly(demo: Demo) -> None:
    sid = demo.span_id("q-0058", "policies/warranty.md", 2414)
    before = dump(demo.store)
    made = review.accept(demo.store, demo.new, sid, 2633, 2739, annotator="ana").decision
    out = review.undo(demo.store, demo.new, made.id, annotator="ana")
    assert dump(demo.store)["spans"] == before["spans"]
    u = out.decision
    assert (u.kind, u.old_start, u.old_end, u.new_start, u.new_end) == (
        "undo",
        2414,
        2520,
        2633,
        2739,
    )
    assert len(review.pending(demo.store, demo.new)) == 32


def test_undo_refuses_twice_and_refuses_an_undo(demo: Demo) -> None:
    sid = demo.span_id("q-0046", "api/reference.md", 263)
    made = review.accept(demo.store, demo.new, sid, 489, 573, annotator="ana").decision
    undone = review.undo(demo.store, demo.new, made.id, annotator="ana").decision
    before = dump(demo.store)
    with pytest.raises(StoreError, match="later decision"):
        review.undo(demo.store, demo.new, made.id, annotator="ana")
    with pytest.raises(StoreError, match="itself an undo"):
        review.undo(demo.store, demo.new, undone.id, annotator="ana")
    with pytest.raises(StoreError, match="no review decision"):
        review.undo(demo.store, demo.new, 999, annotator="ana")
    assert dump(demo.store) == before


def test_undo_refuses_a_span_edited_after_the_decision(demo: Demo) -> None:
    sid = demo.span_id("q-0046", "api/reference.md", 263)
    made = review.accept(demo.store, demo.new, sid, 489, 573, annotator="ana").decision
    demo.store.update_span(sid, 489, 560, demo.new.text("api/reference.md"), annotator="ana")
    with pytest.raises(StoreError, match="edited after the decision"):
        review.undo(demo.store, demo.new, made.id, annotator="ana")


def resolve_all(demo: Demo) -> list[review.Outcome]:
    """Decide every waiting span the way corpus-v2-expected.json says."""
    outcomes = []
    for p in review.pending(demo.store, demo.new):
        want = demo.entries()[key(p)]["expected"]
        if want:
            start, end = want[0]["start"], want[0]["end"]
            outcomes.append(
                review.accept(demo.store, demo.new, p.span_id, start, end, annotator="a")
            )
        else:
            outcomes.append(review.orphan(demo.store, demo.new, p.span_id, annotator="a"))
    return outcomes


def test_the_last_decision_rebinds_the_store_to_the_new_corpus(demo: Demo) -> None:
    outcomes = resolve_all(demo)
    assert [o.waiting for o in outcomes] == list(range(31, -1, -1))
    assert [o.rebound for o in outcomes] == [False] * 31 + [True]
    assert demo.store.corpus_hash == demo.expected["new_corpus_hash"]
    assert demo.store.bound_documents() == demo.new.doc_hashes
    assert {s.doc_hash for _, s in demo.store.spans()} <= set(demo.new.doc_hashes.values())
    assert review.pending(demo.store, demo.new) == []
    assert demo.store.count("spans") == 107
    exported = labelset.export(demo.store, demo.new)
    assert exported["corpus"]["hash"] == demo.expected["new_corpus_hash"]
    (q58,) = [q for q in exported["queries"] if q["id"] == "q-0058"]
    assert [(e["start"], e["end"]) for e in q58["evidence"]] == [(2633, 2739)]


def test_undo_after_the_rebind_makes_the_span_wait_again(demo: Demo) -> None:
    last = resolve_all(demo)[-1].decision
    out = review.undo(demo.store, demo.new, last.id, annotator="a")
    assert (out.waiting, out.rebound) == (1, False)
    (again,) = review.pending(demo.store, demo.new)
    assert (again.span_id, again.span.start, again.state) == (
        last.span_id,
        last.old_start,
        SpanState.STALE,
    )
    assert demo.store.corpus_hash != demo.expected["new_corpus_hash"]
    with pytest.raises(StoreError, match="1 span"):
        labelset.export(demo.store, demo.new)
    assert last.new_start is not None and last.new_end is not None
    redo = review.accept(
        demo.store, demo.new, last.span_id, last.new_start, last.new_end, annotator="a"
    )
    assert redo.rebound and demo.store.corpus_hash == demo.expected["new_corpus_hash"]


def test_export_refuses_while_spans_wait_and_says_how_many(demo: Demo) -> None:
    with pytest.raises(StoreError, match=r"^32 span\(s\) wait for review"):
        labelset.export(demo.store, demo.new)


# -- a document removed: orphaned, offsets counted by hand ------------------------------

OLD = "Intro line.\nRefunds are paid within 14 days.\nShipping is free.\n"
# "Refunds are paid within 14 days." is 12..45


def small_store(texts: dict[str, str]) -> tuple[Store, Span]:
    store = Store.memory()
    corpus = Corpus.from_texts(texts)
    store.bind(corpus.doc_hashes)
    store.add_query("When are refunds paid?", annotator="ana", query_id="q-0001")
    span = Span.from_text(OLD, "refunds.txt", 12, 45)
    return store, store.add_span("q-0001", span, OLD, annotator="ana")


def test_a_removed_document_orphans_its_spans_and_accept_is_refused() -> None:
    store, span = small_store({"refunds.txt": OLD, "other.txt": "Other."})
    assert span.id is not None
    gone = Corpus.from_texts({"other.txt": "Other."})
    (item,) = review.proposals(store, gone)
    assert (item.pending.state, item.pending.new_text) == (SpanState.ORPHANED, None)
    assert item.pending.old_text == OLD
    assert (item.proposal.orphaned, item.proposal.reason) == (True, "document removed")
    with pytest.raises(StoreError, match="can only be orphaned"):
        review.accept(store, gone, span.id, 0, 5, annotator="ana")
    out = review.orphan(store, gone, span.id, annotator="ana")
    assert (out.waiting, out.rebound, store.count("spans")) == (0, True, 0)
    assert store.corpus_hash == gone.hash


def test_an_inserted_line_moves_the_span_by_its_length() -> None:
    store, span = small_store({"refunds.txt": OLD})
    assert span.id is not None
    new = Corpus.from_texts({"refunds.txt": "Notice: prices changed.\n" + OLD})
    (item,) = review.proposals(store, new)
    best = item.proposal.candidates[0]
    assert (best.kind, best.start, best.end) == ("exact", 36, 69)
    assert store.span(span.id)[1].start == 12  # proposed, not applied
    out = review.accept(store, new, span.id, 36, 69, annotator="ana")
    assert out.span is not None
    assert (out.span.start, out.span.prefix, out.rebound) == (
        36,
        "Notice: prices changed.\nIntro line.\n"[-32:],
        True,
    )

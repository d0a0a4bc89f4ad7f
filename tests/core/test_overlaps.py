"""Duplicate evidence is refused; nested or overlapping spans are flagged (§3)."""

from __future__ import annotations

import pytest

from labeler.core.errors import StoreError
from labeler.core.overlaps import describe, import_warnings, overlapping_pairs, relation
from labeler.core.store import Store
from labeler.core.values import Query, Span
from tests.conftest import table_dump

TEXT = "Refunds: within 30 days. Exchanges: within 60 days."
DOC = "policies/refunds.md"


def span(start: int, end: int, doc: str = DOC) -> Span:
    return Span.from_text(TEXT, doc, start, end)


def test_the_same_offsets_twice_are_refused_and_nothing_changes(memory_store: Store) -> None:
    q = memory_store.add_query("Refund window?", annotator="ann")
    memory_store.add_span(q.id, span(9, 23), TEXT, annotator="ann")
    before = table_dump(memory_store)
    with pytest.raises(StoreError, match=r"already has policies/refunds.md 9..23 .*drawn by ann"):
        memory_store.add_span(q.id, span(9, 23), TEXT, annotator="bob")
    assert table_dump(memory_store) == before


def test_another_query_may_hold_the_same_offsets(memory_store: Store) -> None:
    a = memory_store.add_query("Refund window?", annotator="ann")
    b = memory_store.add_query("How many days?", annotator="ann")
    memory_store.add_span(a.id, span(9, 23), TEXT, annotator="ann")
    assert memory_store.add_span(b.id, span(9, 23), TEXT, annotator="ann").start == 9


def test_a_move_onto_a_sibling_is_refused(memory_store: Store) -> None:
    q = memory_store.add_query("Refund window?", annotator="ann")
    memory_store.add_span(q.id, span(9, 23), TEXT, annotator="ann")
    other = memory_store.add_span(q.id, span(9, 20), TEXT, annotator="ann")
    with pytest.raises(StoreError, match="not adding it twice"):
        memory_store.update_span(other.id or 0, 9, 23, TEXT, annotator="ann")


def test_an_import_with_a_repeated_span_is_refused(memory_store: Store) -> None:
    q = Query("q-0001", "Refund window?", evidence=(span(9, 23), span(9, 23)))
    with pytest.raises(StoreError, match=r"9\.\.23 as evidence twice"), memory_store.write() as db:
        memory_store.put_queries([q], {DOC: TEXT}, db=db)
    assert memory_store.count("queries") == 0


def test_nesting_and_overlap_are_named(memory_store: Store) -> None:
    q = memory_store.add_query("Refund window?", annotator="ann")
    memory_store.add_span(q.id, span(9, 23), TEXT, annotator="ann")
    inner = span(16, 23)
    others = memory_store.overlapping(q.id, inner)
    assert [(s.start, s.end) for s in others] == [(9, 23)]
    assert describe(q.id, inner, others) == (
        "q-0001: policies/refunds.md 16..23 nested in another span (9..23)"
    )
    assert relation(span(0, 12), span(9, 23)) == "overlaps"
    assert describe(q.id, span(24, 35), memory_store.overlapping(q.id, span(24, 35))) is None


def test_touching_spans_do_not_overlap() -> None:
    assert overlapping_pairs([span(0, 9), span(9, 23)]) == []
    assert overlapping_pairs([span(0, 9), span(8, 23), span(8, 23, "other.md")]) == [
        (span(0, 9), span(8, 23))
    ]


def test_import_warnings_count_the_pairs() -> None:
    q = Query("q-0007", "x?", evidence=(span(0, 23), span(9, 16), span(10, 12)))
    assert import_warnings([q]) == [
        "q-0007: 3 pair(s) of spans nest or overlap (policies/refunds.md 0..23 and 9..16)"
    ]

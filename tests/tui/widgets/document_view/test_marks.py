"""Highlight roles and the bisect index over marks."""

from __future__ import annotations

from dataclasses import replace

from labeler.core.values import Span
from labeler.tui.widgets.document_view.marks import (
    Mark,
    MarkIndex,
    Role,
    alternatives_in,
    marks_for,
)

TEXT = "0123456789" * 5


def span(start: int, end: int, who: str = "ann", sid: int = 1, doc: str = "d") -> Span:
    return Span(doc, start, end, TEXT[start:end], annotator=who, id=sid)


def mark(start: int, end: int, role: Role = Role.OTHER) -> Mark:
    return Mark(start, end, role, None, "q", "ann")


def test_roles_current_and_other() -> None:
    spans = [("q1", span(0, 5, sid=1)), ("q2", span(3, 8, sid=2)), ("q1", span(0, 2, doc="e"))]
    got = marks_for("d", spans, "q1")
    assert [(m.start, m.end, m.role, m.span_id) for m in got] == [
        (0, 5, Role.CURRENT, 1),
        (3, 8, Role.OTHER, 2),
    ]


def test_roles_by_annotator_put_me_first() -> None:
    spans = [
        ("q1", span(0, 5, "zoe", 1)),
        ("q1", span(2, 6, "bob", 2)),
        ("q1", span(7, 9, "carl", 3)),
        ("q2", span(1, 2, "bob", 4)),
    ]
    got = marks_for("d", spans, "q1", by_annotator=True, me="zoe")
    assert [m.role for m in got] == [
        Role.ANNOTATOR_A,
        Role.ANNOTATOR_B,
        Role.ANNOTATOR_B,
        Role.OTHER,
    ]


def test_overlapping_finds_long_marks_that_started_earlier() -> None:
    index = MarkIndex([mark(0, 40), mark(10, 12), mark(20, 25), mark(30, 31)])
    assert [(m.start, m.end) for m in index.overlapping(21, 29)] == [(0, 40), (20, 25)]
    assert [(m.start, m.end) for m in index.overlapping(12, 20)] == [(0, 40)]
    assert [(m.start, m.end) for m in index.overlapping(41, 50)] == []


def test_overlapping_excludes_a_mark_ending_at_lo() -> None:
    index = MarkIndex([mark(0, 10), mark(10, 20)])
    assert [(m.start, m.end) for m in index.overlapping(10, 11)] == [(10, 20)]


def test_editable_at_prefers_the_innermost_current_mark() -> None:
    index = MarkIndex([mark(0, 30, Role.CURRENT), mark(5, 10, Role.CURRENT), mark(6, 8)])
    found = index.editable_at(7)
    assert found is not None and (found.start, found.end) == (5, 10)
    end_touch = index.editable_at(30)
    assert end_touch is not None and (end_touch.start, end_touch.end) == (0, 30)
    assert index.editable_at(31) is None


def test_next_and_previous_start_skip_other_queries() -> None:
    index = MarkIndex([mark(5, 6, Role.CURRENT), mark(8, 9), mark(12, 14, Role.CURRENT)])
    assert index.next_start(5) == 12
    assert index.next_start(12) is None
    assert index.previous_start(12) == 5
    assert index.previous_start(5) is None
    assert index.next_start(5, editable=False) == 8


def test_alternatives_are_the_spans_that_share_a_group_across_documents() -> None:
    grouped = [span(0, 5, sid=1), span(0, 5, sid=2, doc="e"), span(7, 9, sid=3)]
    evidence = [replace(grouped[0], group=1), replace(grouped[1], group=1), grouped[2]]
    alone = replace(span(10, 12, sid=4), group=2)  # a group of one is not an alternative
    assert alternatives_in([*evidence, alone]) == frozenset(evidence[:2])


def test_only_the_current_querys_alternatives_are_marked_in_any_role() -> None:
    mine = [replace(span(0, 5, "zoe", 1), group=1), replace(span(0, 5, "zoe", 2, "e"), group=1)]
    other = replace(span(6, 8, sid=5), group=1)
    spans = [("q1", mine[0]), ("q1", span(7, 9, "bob", 3)), ("q2", other)]
    for by_annotator in (False, True):
        got = marks_for("d", spans, "q1", by_annotator=by_annotator, me="zoe",
                        alternatives=alternatives_in(mine))  # fmt: skip
        assert [(m.span_id, m.alternative) for m in got] == [(1, True), (3, False), (5, False)]
    assert [m.alternative for m in marks_for("d", spans, "q1")] == [False, False, False]

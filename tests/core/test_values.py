"""Spans and queries are validated when built (design §3); state_in decides valid/stale/orphaned."""

from __future__ import annotations

import pytest

from labeler.core.errors import LabelError
from labeler.core.values import (
    CONTEXT,
    Boundary,
    Query,
    Span,
    SpanState,
    Status,
    parse_boundary,
    parse_status,
)

DIGITS = "0123456789" * 10
"""100 code points whose slices are easy to write down by hand."""


def test_context_is_32_code_points() -> None:
    assert CONTEXT == 32


@pytest.mark.parametrize(
    ("start", "end", "quote", "key"),
    [(-1, 2, "abc", "start"), (3, 3, "", "start"), (5, 2, "", "start"), (0, 3, "ab", "quote")],
)
def test_span_rejects_bad_offsets_and_quotes(start: int, end: int, quote: str, key: str) -> None:
    with pytest.raises(LabelError) as info:
        Span("d.txt", start, end, quote)
    assert info.value.key == key
    assert info.value.offset == start


def test_span_needs_a_document() -> None:
    with pytest.raises(LabelError) as info:
        Span("", 0, 1, "a")
    assert info.value.key == "doc"


def test_from_text_takes_32_code_points_of_context() -> None:
    span = Span.from_text(DIGITS, "d.txt", 40, 50)
    assert span.quote == "0123456789"
    assert span.prefix == "89" + "0123456789" * 3
    assert span.suffix == "0123456789" * 3 + "01"
    assert (len(span.prefix), len(span.suffix)) == (32, 32)


def test_from_text_context_is_cut_at_the_document_edges() -> None:
    head = Span.from_text(DIGITS, "d.txt", 5, 10)
    assert (head.prefix, head.quote) == ("01234", "56789")
    assert head.suffix == DIGITS[10:42]
    tail = Span.from_text(DIGITS, "d.txt", 95, 100)
    assert (tail.quote, tail.suffix) == ("56789", "")
    assert tail.prefix == DIGITS[63:95]


def test_from_text_counts_context_in_code_points_not_bytes() -> None:
    text = "😀" * 40 + "X" + "👍" * 40
    span = Span.from_text(text, "e.txt", 40, 41, doc_hash="sha256:x", annotator="ann")
    assert (span.prefix, span.quote, span.suffix) == ("😀" * 32, "X", "👍" * 32)
    assert (span.doc_hash, span.annotator) == ("sha256:x", "ann")


@pytest.mark.parametrize(
    ("start", "end", "key", "offset"), [(-1, 3, "start", -1), (95, 101, "end", 101)]
)
def test_from_text_rejects_offsets_outside_the_text(
    start: int, end: int, key: str, offset: int
) -> None:
    with pytest.raises(LabelError) as info:
        Span.from_text(DIGITS, "d.txt", start, end)
    assert (info.value.key, info.value.offset) == (key, offset)
    assert "length 100" in info.value.message


@pytest.mark.parametrize(("start", "end"), [(10, 10), (10, 4)])
def test_from_text_names_an_empty_or_reversed_span(start: int, end: int) -> None:
    with pytest.raises(LabelError, match="empty or reversed") as info:
        Span.from_text(DIGITS, "d.txt", start, end)
    assert (info.value.key, info.value.offset) == ("end", end)


def test_check_accepts_the_text_it_was_drawn_on() -> None:
    span = Span.from_text("refunds within 30 days", "p.md", 15, 22)
    assert span.quote == "30 days"
    span.check("refunds within 30 days")


def test_check_rejects_a_changed_quote_and_a_short_text() -> None:
    span = Span.from_text("refunds within 30 days", "p.md", 15, 22)
    with pytest.raises(LabelError) as info:
        span.check("refunds within 14 days")
    assert (info.value.key, info.value.offset) == ("quote", 15)
    with pytest.raises(LabelError) as info:
        span.check("refunds within 30")
    assert (info.value.key, info.value.offset) == ("end", 22)


def test_state_in_valid_stale_and_orphaned() -> None:
    text = "Intro line.\nRefunds are due within 30 days of purchase, as the terms say.\nEnd.\n"
    span = Span.from_text(text, "p.md", 35, 42)
    assert (span.prefix, span.quote) == ("ro line.\nRefunds are due within ", "30 days")
    assert span.suffix == " of purchase, as the terms say.\n"
    assert span.state_in(text) is SpanState.VALID
    # The quote moved: text inserted before it.
    assert span.state_in("New! " + text) is SpanState.STALE
    # Same quote at the same offsets, but its prefix changed ("due" -> "owed").
    assert span.state_in(text.replace("are due", "are owe")) is SpanState.STALE
    # Same quote and prefix, but the suffix changed within 32 code points.
    assert span.state_in(text.replace("of purchase", "of delivery")) is SpanState.STALE
    # A change more than 32 code points after the quote leaves it valid.
    assert span.state_in(text.replace("End.", "END.")) is SpanState.VALID
    assert span.state_in(text.replace("Int", "INT")) is SpanState.VALID
    assert span.state_in(None) is SpanState.ORPHANED
    assert span.state_in(text[:20]) is SpanState.STALE


def test_moved_redraws_quote_and_context() -> None:
    old = Span.from_text("aaa bbb", "x.txt", 4, 7, annotator="ann", created="t0")
    new = old.moved("zz bbb ccc", 3, 6)
    assert (new.start, new.end, new.quote, new.prefix, new.suffix) == (3, 6, "bbb", "zz ", " ccc")
    assert (new.annotator, new.created) == ("ann", "t0")


@pytest.mark.parametrize("qid", ["q-0001", "a", "Q.1:lang-de_2", "x" * 64])
def test_query_ids_accepted(qid: str) -> None:
    assert Query(qid, "Why?").id == qid


@pytest.mark.parametrize("qid", ["", "-q", ".q", "q 1", "q/1", "q#1", "x" * 65, "é"])
def test_query_ids_rejected(qid: str) -> None:
    with pytest.raises(LabelError) as info:
        Query(qid, "Why?")
    assert info.value.key == "id"


def test_query_text_must_not_be_blank() -> None:
    with pytest.raises(LabelError) as info:
        Query("q-1", " \n\t")
    assert info.value.key == "text"


def test_slices_are_sorted_and_unique() -> None:
    q = Query("q-1", "Why?", slices=("tables", "critical", "tables", "lang:de"))
    assert q.slices == ("critical", "lang:de", "tables")


@pytest.mark.parametrize("bad", ["", "two words", "a,b", "x" * 65])
def test_bad_slices_are_rejected(bad: str) -> None:
    with pytest.raises(LabelError) as info:
        Query("q-1", "Why?", slices=("ok", bad))
    assert info.value.key == "slices"


def test_abstention_query_with_evidence_is_rejected() -> None:
    span = Span.from_text("abc", "a.txt", 0, 1)
    with pytest.raises(LabelError) as info:
        Query("q-1", "Why?", abstain=True, evidence=(span,))
    assert info.value.key == "abstain"
    assert Query("q-2", "Why?", abstain=True).answerable is False


def test_evidence_is_ordered_by_document_then_offsets() -> None:
    text = "abcdefghij"
    spans = (
        Span.from_text(text, "b.txt", 0, 2),
        Span.from_text(text, "a.txt", 5, 8),
        Span.from_text(text, "a.txt", 1, 4),
        Span.from_text(text, "a.txt", 1, 3),
    )
    q = Query("q-1", "Why?", evidence=spans)
    assert [(s.doc, s.start, s.end) for s in q.evidence] == [
        ("a.txt", 1, 3),
        ("a.txt", 1, 4),
        ("a.txt", 5, 8),
        ("b.txt", 0, 2),
    ]
    assert q.answerable is True


def test_boundary_and_status_given_as_strings_become_enums() -> None:
    q = Query("q-1", "Why?", boundary="control", status="reviewed")  # type: ignore[arg-type]
    assert (q.boundary, q.status) == (Boundary.CONTROL, Status.REVIEWED)
    with pytest.raises(LabelError) as info:
        Query("q-1", "Why?", boundary="sideways")  # type: ignore[arg-type]
    assert info.value.key == "boundary"


def test_parse_boundary_and_status_name_the_allowed_values() -> None:
    assert parse_boundary("table-header-row") is Boundary.TABLE_HEADER_ROW
    assert parse_status("labelled") is Status.LABELLED
    with pytest.raises(LabelError, match="condition-consequence") as info:
        parse_boundary("nope", key="queries[0].boundary")
    assert info.value.key == "queries[0].boundary"
    with pytest.raises(LabelError, match="draft, labelled, reviewed"):
        parse_status("done")


def test_the_boundary_list_is_the_spec_list() -> None:
    assert [b.value for b in Boundary] == [
        "condition-consequence",
        "heading-paragraph",
        "list-intro-item",
        "table-header-row",
        "cross-reference",
        "code-explanation-snippet",
        "control",
        "other",
    ]

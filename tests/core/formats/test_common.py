"""The shared pieces of the format modules: raw-to-canonical views, ids, locations."""

from __future__ import annotations

import pytest

from labeler.core.errors import LabelError
from labeler.core.formats._common import FreshIds, RawView, Where, raw_span, text_key, valid_id
from labeler.core.values import Query

# raw: 0 BOM, 1 C, 2 a, 3 f, 4 e, 5 U+0301, 6 ' ', 7-11 family emoji (3 people, 2 ZWJ),
#      12 CR, 13 LF, 14 o, 15 k
RAW = "\ufeffCafe\u0301 👩\u200d👩\u200d👧\r\nok"
# canonical: 0 C, 1 a, 2 f, 3 é, 4 ' ', 5-9 family, 10 LF, 11 o, 12 k
CANONICAL = "Café 👩\u200d👩\u200d👧\nok"


def test_view_maps_bom_combining_marks_and_crlf() -> None:
    view = RawView(RAW)
    assert view.canonical == CANONICAL
    assert view.raw_length == 16
    mapped = [view.to_canonical(r) for r in (0, 1, 4, 5, 6, 7, 11, 12, 13, 14, 16)]
    assert mapped == [0, 0, 3, 3, 4, 5, 9, 10, 10, 11, 13]


def test_view_maps_canonical_offsets_back_to_piece_starts() -> None:
    view = RawView(RAW)
    # é (3..4) is raw 4..6 with its combining mark; the family ends before CR at 12.
    assert [view.to_raw(c) for c in (0, 3, 4, 5, 10, 11, 13)] == [1, 4, 6, 7, 12, 14, 16]


def test_view_of_canonical_text_passes_offsets_through() -> None:
    view = RawView("plain 👍 text")
    assert [view.to_canonical(i) for i in (0, 6, 7, 12)] == [0, 6, 7, 12]
    assert view.to_raw(7) == 7


def test_view_of_canonical_text_after_a_bom_shifts_by_one() -> None:
    view = RawView("\ufeffab")
    assert (view.canonical, view.to_canonical(2), view.to_raw(1)) == ("ab", 1, 2)


def test_view_maps_conjoining_jamo_onto_their_syllables() -> None:
    # raw: 0-2 jamo (G, A, K), 3 ' ', 4-5 jamo (G, A), 6 CR, 7 LF, 8 x
    view = RawView("\u1100\u1161\u11a8 \u1100\u1161\r\nx")
    assert view.canonical == "각 가\nx"
    assert [view.to_canonical(r) for r in range(10)] == [0, 0, 0, 1, 2, 2, 3, 3, 4, 5]
    assert [view.to_raw(c) for c in range(6)] == [0, 3, 4, 6, 8, 9]


def test_raw_span_remaps_and_checks_the_quote() -> None:
    view = RawView(RAW)
    span = raw_span(view, "d.txt", 1, 6, "Cafe\u0301", Where("f.csv", 3, "references[0]"))
    assert (span.start, span.end, span.quote, span.suffix) == (0, 4, "Café", CANONICAL[4:])


def test_raw_span_errors_carry_the_location() -> None:
    view = RawView(RAW)
    where = Where("f.csv", 3, "references[1]")
    with pytest.raises(LabelError) as mismatch:
        raw_span(view, "d.txt", 1, 5, "Café", where)
    with pytest.raises(LabelError) as outside:
        raw_span(view, "d.txt", 14, 17, None, where)
    with pytest.raises(LabelError) as inside_a_piece:
        raw_span(view, "d.txt", 4, 5, None, where)  # e without its accent is empty
    assert str(mismatch.value).startswith("f.csv:3, key references[1], offset 1: quote does not")
    assert (outside.value.offset, "out of range" in outside.value.message) == (17, True)
    assert "empty in canonical text" in inside_a_piece.value.message


def test_where_builds_key_paths() -> None:
    where = Where("x.json").at("[2]").at("data").at("text")
    assert where.key == "[2].data.text"
    assert Where("x.json", key="data[0]").at("paragraphs[1]").key == "data[0].paragraphs[1]"


def test_fresh_ids_continue_after_the_largest_and_skip_taken() -> None:
    existing = [Query(id="q-0007", text="a"), Query(id="custom", text="b")]
    ids = FreshIds.after(existing, reserved=["q-0009"])
    assert [ids.next(), ids.next()] == ["q-0010", "q-0011"]
    gaps = FreshIds.after([Query(id="q-0001", text="a")], reserved=["q-0002"])
    assert gaps.next() == "q-0003"


def test_text_key_ignores_case_spacing_and_normal_form() -> None:
    assert text_key("  How  do I\tRefund? ") == text_key("how do i refund?")
    assert text_key("Cafe\u0301") == text_key("CAFÉ")


def test_valid_id_follows_the_query_id_rule() -> None:
    assert valid_id("56be4db0acb8001400a502ec")
    assert not valid_id("has space")
    assert not valid_id("-leading-dash")

"""The one-line query filter."""

from __future__ import annotations

import pytest

from labeler.core.errors import LabelError
from labeler.core.values import Boundary, Query, Status
from labeler.tui.label.filters import QueryFilter

Q1 = Query("q-0001", "How long do refunds take?", boundary=Boundary.CONTROL, slices=("critical",))
Q2 = Query("q-0002", "Is there a fee?", status=Status.LABELLED, notes="Refund fee table")
Q3 = Query("q-0003", "Gift card expiry", abstain=True, status=Status.REVIEWED, annotator="bob")


def test_empty_filter_keeps_everything() -> None:
    f = QueryFilter.parse("   ")
    assert f.empty
    assert f.apply([Q1, Q2, Q3]) == [Q1, Q2, Q3]


def test_words_search_id_text_notes_slices_and_pattern() -> None:
    assert QueryFilter.parse("REFUND").apply([Q1, Q2, Q3]) == [Q1, Q2]
    assert QueryFilter.parse("q-0003").apply([Q1, Q2, Q3]) == [Q3]
    assert QueryFilter.parse("critic").apply([Q1, Q2, Q3]) == [Q1]
    assert QueryFilter.parse("control").apply([Q1, Q2, Q3]) == [Q1]


def test_fields_take_unique_prefixes() -> None:
    f = QueryFilter.parse("s:lab p:contr")
    assert (f.status, f.pattern) == (Status.LABELLED, Boundary.CONTROL)
    assert QueryFilter.parse("status:draft slice:critical").apply([Q1, Q2, Q3]) == [Q1]
    assert QueryFilter.parse("is:abstain").apply([Q1, Q2, Q3]) == [Q3]
    assert QueryFilter.parse("by:bob").apply([Q1, Q2, Q3]) == [Q3]


def test_ambiguous_or_unknown_values_are_errors() -> None:
    with pytest.raises(LabelError, match="pattern:c matches 4"):
        QueryFilter.parse("pattern:c")
    with pytest.raises(LabelError, match="unknown filter 'colour'"):
        QueryFilter.parse("colour:red")

"""The facts rule (§23): what a query's answer labels may hold, and the key each refusal names."""

from __future__ import annotations

import pytest

from labeler.core.errors import LabelError
from labeler.core.facts import (
    MAX_FACTS,
    fact_key,
    tidy_phrase,
    with_alternative,
    with_fact,
    without_phrasing,
)
from labeler.core.values import Query


def test_facts_are_kept_in_label_order() -> None:
    q = Query(id="q-1", text="How long?", facts=(("30 days", "thirty days"), ("refund",)))
    assert q.facts == (("30 days", "thirty days"), ("refund",))


@pytest.mark.parametrize(
    ("facts", "key"),
    [
        ((("a", "A"),), "facts[0][1]"),
        ((("30 days",), ("30  Days",)), "facts[1][0]"),
        ((("a\nb",),), "facts[0][0]"),
        ((("a\x1b[2Jb",),), "facts[0][0]"),
        ((("x" * 201,),), "facts[0][0]"),
        ((("",),), "facts[0][0]"),
        (((" a",),), "facts[0][0]"),
        (((),), "facts[0]"),
        ((tuple(str(i) for i in range(11)),), "facts[0]"),
        (tuple((f"f{i}",) for i in range(MAX_FACTS + 1)), "facts"),
    ],
)
def test_bad_facts_are_refused_naming_the_key(facts: tuple[tuple[str, ...], ...], key: str) -> None:
    with pytest.raises(LabelError) as caught:
        Query(id="q-1", text="How long?", facts=facts)
    assert caught.value.key == key


def test_an_abstention_query_carries_no_facts() -> None:
    with pytest.raises(LabelError, match="abstention") as caught:
        Query(id="q-1", text="Who?", abstain=True, facts=(("nobody",),))
    assert caught.value.key == "facts"


def test_one_phrase_rule() -> None:
    assert fact_key(" 30  Days ") == "30 days"
    assert tidy_phrase("  within\n 30\tdays ") == "within 30 days"


def test_facts_are_added_to_and_taken_from_one_phrasing_at_a_time() -> None:
    facts = with_fact("q-1", (), " 30\ndays ")
    facts = with_alternative("q-1", with_fact("q-1", facts, "refund"), 0, "thirty days")
    assert facts == (("30 days", "thirty days"), ("refund",))
    with pytest.raises(LabelError, match="repeats"):
        with_alternative("q-1", facts, 1, "30 Days")
    assert without_phrasing(facts, 0, 0) == (("thirty days",), ("refund",))
    assert without_phrasing(facts, 1, 0) == (("30 days", "thirty days"),)

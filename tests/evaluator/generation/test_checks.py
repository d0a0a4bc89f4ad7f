"""The deterministic checks, each against an answer worked out by hand."""

from __future__ import annotations

import dataclasses
import time

import pytest

from evaluator.chunk import Chunk
from evaluator.generation.checks.abstention import abstains, abstention, evidence_present
from evaluator.generation.checks.answer import check_answer
from evaluator.generation.checks.citations import citation_alignment, citations
from evaluator.generation.checks.completeness import completeness
from evaluator.generation.checks.repeats import repeats
from evaluator.generation.checks.text import normal
from evaluator.generation.checks.unsupported import Item, items, unsupported
from evaluator.generation.client import MAX_ANSWER, Reply
from evaluator.generation.prompt import Prompt, Source
from labeler.core.values import Query, Span

A = "Notice period is 30 days. Fees are $1,200 per year."
B = "Office hours are 9 to 5."
C = "Notice period is 30 days."
TEXTS = {"a.md": A, "b.md": B, "c.md": C}
NOTICE = Span.from_text(A, "a.md", 0, 25)
FEES = Span.from_text(A, "a.md", 26, 51)
SOURCES = (
    Source(1, Chunk("1", "a.md", 0, 25), A[0:25]),
    Source(2, Chunk("2", "a.md", 26, 51), A[26:51]),
    Source(3, Chunk("3", "b.md", 0, 24), B),
)
PHRASE = "NOT IN SOURCES"


def test_citations_are_read_in_every_form_and_unknown_ones_listed() -> None:
    found = citations("x [2] y [1, 3] z [3;5] w [99] [0] [2]", 4)
    assert (found.valid, found.unknown) == ((2, 1, 3), (5, 99, 0))


def test_citation_alignment_by_hand() -> None:
    # cited {1, 2, 3, 99}: 1 holds NOTICE, 2 holds FEES, 3 and 99 hold nothing -> 2 / 4;
    # both groups are in the context and both cited -> 2 / 2
    answer = "Notice is 30 days [1]. Fees are $1,200 [2][3]. See [99]."
    found = citation_alignment(answer, SOURCES, (NOTICE, FEES), 0.8)
    assert found.supporting == (1, 2) and found.cited.unknown == (99,)
    assert (found.precision, found.recall) == (0.5, 1.0)
    wrong = citation_alignment("Notice is 30 days [3].", SOURCES, (NOTICE, FEES), 0.8)
    assert (wrong.precision, wrong.recall) == (0.0, 0.0)
    silent = citation_alignment("Thirty days.", SOURCES, (NOTICE, FEES), 0.8)
    assert (silent.precision, silent.recall) == (None, 0.0)
    assert citation_alignment("x [3]", SOURCES[2:], (NOTICE,), 0.8).recall is None


def test_citation_recall_counts_a_group_of_alternatives_once() -> None:
    # NOTICE and its copy in c.md are one group: citing the source of either cites it;
    # groups in context: {NOTICE | copy} (source 1) and {FEES} (source 2) -> 1 of 2 cited
    copy = dataclasses.replace(Span.from_text(C, "c.md", 0, 25), group=1)
    evidence = (dataclasses.replace(NOTICE, group=1), copy, FEES)
    found = citation_alignment("Thirty days [1].", SOURCES, evidence, 0.8)
    assert (found.groups_in_context, found.groups_cited, found.recall) == (2, 1, 0.5)


def test_items_are_taken_by_kind_and_never_twice() -> None:
    answer = ('Notice is 30 days [1]. Fees are $1,200 [2]. It was signed on 2024-03-05 as '
              '"Acme Ltd" [2]. Fees rise 5 % in 2025, from 4 March 2024.')  # fmt: skip
    assert items(answer) == (
        Item("quoted", "Acme Ltd"), Item("date", "2024-03-05"), Item("date", "4 March 2024"),
        Item("amount", "$1,200"), Item("amount", "5 %"), Item("number", "30"),
        Item("number", "2025"),
    )  # fmt: skip


def test_unsupported_lists_what_no_cited_source_holds() -> None:
    # cited: sources 1 and 2. 30 in [1]; 1200 in [2]; the rest in neither
    answer = ('Notice is 30 days [1]. Fees are $1,200 [2]. It was signed on 2024-03-05 as '
              '"Acme Ltd" [2]. Fees rise 5 % in 2025.')  # fmt: skip
    found = unsupported(answer, SOURCES)
    assert found.items == (Item("quoted", "Acme Ltd"), Item("date", "2024-03-05"),
                           Item("amount", "5 %"), Item("number", "2025"))  # fmt: skip
    assert (found.value, found.checked) == (4, 6)
    # the same facts uncited: every item unsupported, even those the context holds
    assert unsupported("Notice is 30 days, fees $1,200.", SOURCES).value == 2
    # a citation of a source that does not exist supports nothing
    assert unsupported("Notice is 30 days [99].", SOURCES).items == (Item("number", "30"),)
    # a quoted phrase is supported when its normal form is in a cited source
    assert unsupported('It says "notice  PERIOD is 30" [1].', SOURCES).value == 0


def test_completeness_by_the_stated_rule() -> None:
    answer = "Notice is thirty days [1]. Fees are $1,200 [2], an annual fees total."
    facts = [["30 days", "thirty days"], ["$1,200"], ["annual fee"], ["signed by the director"]]
    found = completeness(answer, facts)
    # thirty days: exact; 1 200: exact; annual fee: partial_ratio 100 against "annual
    # fees"; the director: 49, under 90
    assert found.stated == (True, True, True, False) and found.value == 0.75
    # digits never match fuzzily: 31 days is not stated by "30 days"
    assert completeness("Notice is 30 days.", [["31 days"]]).value == 0.0
    assert completeness("anything", []).value is None
    assert normal("Thirty-day  Notice.") == "thirty day notice"


def test_abstention_by_hand() -> None:
    assert abstains("Sorry: not in sources.", PHRASE)
    assert not abstains("The notice is 30 days.", PHRASE)
    assert abstains("", PHRASE, refused=True)
    assert evidence_present(SOURCES, (NOTICE, FEES), 0.8) is True
    assert evidence_present(SOURCES[2:], (NOTICE, FEES), 0.8) is False
    assert evidence_present(SOURCES[:1], (NOTICE, FEES), 0.8) is None
    assert evidence_present(SOURCES, (), 0.8) is False  # an abstention query
    assert abstention(PHRASE, PHRASE, True).value == 0.0  # abstained with the evidence there
    assert abstention(PHRASE, PHRASE, False).value == 1.0
    assert abstention("30 days [1].", PHRASE, True).value == 1.0
    assert abstention("30 days [1].", PHRASE, False).value == 0.0  # answered without it
    assert abstention("", PHRASE, False, refused=True).value == 1.0
    assert abstention(PHRASE, PHRASE, None).value is None


@pytest.mark.parametrize(
    ("answer", "repeated", "sentences"),
    [
        ("Notice is 30 days [1]. Notice is 30 days [2]! Fees apply.\nnotice IS 30 days.",
         ("notice is 30 days", "notice is 30 days"), 4),
        ("One. Two. Three.", (), 3),
        ("", (), 0),
    ],
)  # fmt: skip
def test_repeated_sentences(answer: str, repeated: tuple[str, ...], sentences: int) -> None:
    found = repeats(answer)
    assert (found.repeated, found.sentences, found.value) == (repeated, sentences, len(repeated))


def test_one_answer_checked_five_ways() -> None:
    query = Query("q-0001", "Notice?", evidence=(NOTICE, FEES))
    prompt = Prompt("q-0001", "Notice?", SOURCES, "…")
    reply = Reply("Notice is 30 days [1]. Notice is 30 days [1]. It costs $9 [2].")
    found = check_answer(prompt, reply, query, [["30 days"], ["$1,200"]], PHRASE, 0.8)
    assert (found.citations.precision, found.citations.recall) == (1.0, 1.0)
    assert found.unsupported.items == (Item("amount", "$9"),)
    assert found.completeness.value == 0.5
    assert (found.abstention.present, found.abstention.value) == (True, 1.0)
    assert found.repeats.value == 1
    silent = check_answer(prompt, Reply(PHRASE), dataclasses.replace(query, abstain=True,
                          evidence=()), [], PHRASE, 0.8)  # fmt: skip
    assert (silent.abstention.present, silent.abstention.value) == (False, 1.0)


def test_an_answer_of_many_items_is_checked_in_linear_time() -> None:
    # A hostile answer at the client's length bound: 25,000 quoted strings citing [1]. Each
    # kind read the text again per item and each item normalised its source again: 11 s.
    answer = ('"a" [1] ' * 25_000)[:MAX_ANSWER]
    sources = tuple(Source(n, Chunk(f"c{n}", "a.md", 0, 10), "The rate is 3.5 %. " * 80)
                    for n in (1, 2))  # fmt: skip
    start = time.monotonic()
    found = unsupported(answer, sources)
    assert (found.value, found.checked) == (25_000, 25_000)
    assert time.monotonic() - start < 4.0

"""Sentences as a reader sees them (issue 33): a hard-wrapped line goes on, a blank line,
heading, list item, table row or code line starts afresh, and markers stay out."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.text.sentences import sentence_around, sentences

WRAPPED = (
    "# Deprecation\n\n"
    "The v1 API will stop on 31 March 2025; requests to v1\n"
    "will fail with a 410. Move to v2.\n\n"
    "- Refunds take five days\n"
    "  when paid by card.\n"
    "1. Gifts never expire.\n"
    "| plan | devices |\n"
    "```\n"
    "code one\n"
    "code two\n"
    "```\n"
)


def cut(text: str) -> list[str]:
    return [text[a:b] for a, b in sentences(text)]


def test_a_wrapped_paragraph_is_split_at_terminators_only() -> None:
    assert cut(WRAPPED) == [
        "Deprecation",
        "The v1 API will stop on 31 March 2025; requests to v1\nwill fail with a 410.",
        "Move to v2.",
        "Refunds take five days\n  when paid by card.",
        "Gifts never expire.",
        "plan",  # a table cell is a unit of its own (issue 45)
        "devices",
        "code one",
        "code two",
    ]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("", []),
        ("\n\n\n", []),
        ("- \n* \n", []),  # markers with nothing after them
        ("#hashtag is text.", ["#hashtag is text."]),
        ("## Heading\nParagraph.", ["Heading", "Paragraph."]),
        ("> quoted\n> more.", ["quoted\n> more."]),  # a quote's lines are one unit
        ("a" * 3 + "\r\nb.", ["aaa\r\nb."]),
        ("```\nunclosed fence\nstays code", ["unclosed fence", "stays code"]),
        ("x" * 10_000, ["x" * 10_000]),  # one long line
    ],
)
def test_hostile_texts(text: str, wanted: list[str]) -> None:
    assert cut(text) == wanted


def test_sentence_around_an_offset_leaves_the_list_marker_out() -> None:
    at = WRAPPED.index("- Refunds")
    a, b = sentence_around(WRAPPED, at, at, 4_000)
    assert WRAPPED[a:b] == "Refunds take five days\n  when paid by card."


def test_the_demo_changelog_offers_the_whole_deprecation_sentence() -> None:
    demo = Path(__file__).parents[2] / "data" / "demo" / "corpus" / "api" / "changelog.txt"
    text = demo.read_text(encoding="utf-8")
    found = cut(text)
    assert "It will stop responding on 31 March 2025; requests to v1" not in found
    assert (
        "It will stop responding on 31 March 2025; requests to v1\n"
        "    after that date receive `410 Gone`."
    ) in found


def test_a_sentence_is_found_in_the_middle_of_one_very_long_line() -> None:
    """A 2 MB single-line document: the look-around window starts mid-line."""
    text = "A sentence here. " * 120_000
    a, b = sentence_around(text, 1_000_000, 1_000_000, 4_000)
    assert text[a:b] == "A sentence here."
    a, b = sentence_around("word " * 400_000, 1_000_000, 1_000_000, 4_000)
    assert b - a > 7_000  # no terminator: the window's worth, not nothing

"""The fragments an annotator met (issue 45, item 4) are whole sentences now: abbreviations
("e.g.", "Vol.", "p. 14", "Dr.", "U.S."), a quoted question, a quote wrapped over lines, a
code comment over several lines, a table cell."""

from __future__ import annotations

import pytest

from labeler.core.text.segment import breaks
from labeler.core.text.sentences import sentences


def cut(text: str) -> list[str]:
    return [text[a:b] for a, b in sentences(text)]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "Use a tool, e.g. a drill. Then stop.",
            ["Use a tool, e.g. a drill.", "Then stop."],
        ),
        (
            "See Vol. 3 for the terms. Fig. 2, p. 14 shows it.",
            ["See Vol. 3 for the terms.", "Fig. 2, p. 14 shows it."],
        ),
        (
            "Dr. Smith left at 5 p.m. today. The U.S. office closed.",
            ["Dr. Smith left at 5 p.m. today.", "The U.S. office closed."],
        ),
        (
            'She asked "Is it free?" and left. Nobody knew.',
            ['She asked "Is it free?" and left.', "Nobody knew."],
        ),
        (  # hard-wrapped: the abbreviation at a line's end is no break either
            "Pack it well, e.g.\nin its box. Then ship it.",
            ["Pack it well, e.g.\nin its box.", "Then ship it."],
        ),
        (
            "Refunds take five days. Cards are credited within two days.",
            ["Refunds take five days.", "Cards are credited within two days."],
        ),
    ],
)
def test_abbreviations_and_quotes_stay_inside_a_sentence(text: str, wanted: list[str]) -> None:
    assert cut(text) == wanted


def test_a_quote_wrapped_over_lines_is_one_sentence() -> None:
    text = "> The device must be returned\n> within 30 days. Keep the box.\n\nAfter."
    assert cut(text) == [
        "The device must be returned\n> within 30 days.",
        "Keep the box.",
        "After.",
    ]


def test_a_code_comment_over_lines_is_its_own_unit() -> None:
    text = "```python\n# Retry the call up to three\n# times, e.g. on a 503.\nretry(3)\n```\n"
    assert cut(text) == ["Retry the call up to three\n# times, e.g. on a 503.", "retry(3)"]


def test_table_cells_are_their_own_units() -> None:
    text = "| Plan | Limit |\n|---|:--:|\n| Pro | 10 a second, e.g. for sync. Burst 20. |\n"
    assert cut(text) == ["Plan", "Limit", "Pro", "10 a second, e.g. for sync.", "Burst 20."]


def test_breaks_fold_white_space_but_keep_offsets() -> None:
    unit = "It is e.g.\n   fine.   Next   one."
    assert breaks(unit) == ((0, 19), (22, 33))
    assert [unit[a:b] for a, b in breaks(unit)] == ["It is e.g.\n   fine.", "Next   one."]


def test_a_number_ends_a_sentence_in_either_mode() -> None:
    text = "It talks about topic 0. Sentence number 1 follows."
    wanted = ["It talks about topic 0.", "Sentence number 1 follows."]
    assert cut(text) == wanted
    assert [text[a:b] for a, b in sentences(text, careful=False)] == wanted


def test_the_quick_mode_keeps_abbreviations_too() -> None:
    text = "See Vol. 3 and e.g. the index. Dr. Smith agrees."
    assert [text[a:b] for a, b in sentences(text, careful=False)] == [
        "See Vol. 3 and e.g. the index.",
        "Dr. Smith agrees.",
    ]


def test_a_numbered_heading_is_one_sentence() -> None:
    text = "## 1. Who can request a refund\n\n4.2. Fees apply. Then more."
    assert cut(text) == ["1. Who can request a refund", "4.2. Fees apply.", "Then more."]


def test_a_quote_closed_on_a_later_line_ends_its_sentence() -> None:
    """The trial's fragment: pysbd read the doubtful break from the sentence before it on,
    without the opening quote, and ended the sentence at the period, before the closing
    quote; the break after `fee."` was lost and `s` offered two sentences as one."""
    text = (
        '> "Every device is refunded in full, provided\n> the seal is intact. Refunds are'
        ' reduced by the\n> fee." The auditor added nothing.'
    )
    assert cut(text) == [
        '"Every device is refunded in full, provided\n> the seal is intact.',
        'Refunds are reduced by the\n> fee."',
        "The auditor added nothing.",
    ]

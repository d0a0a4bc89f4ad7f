"""generation.jsonl round-trips its records, keeps outside text escaped, and refuses a file
out of shape naming the line and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.generation.run_file import (
    FILE_NAME,
    AnswerRecord,
    CheckRecord,
    FactRecord,
    GenerationFileError,
    SentSource,
    answers_jsonl,
    by_query,
    digest,
    read_answers,
)

HOSTILE = "The rate is 3.5 % [1].\x1b[31m red\x1b]0;pwned\x07 \u202eevil"


def record(answer: str = HOSTILE) -> AnswerRecord:
    return AnswerRecord(
        query="q-0001", candidate="c1", outcome="answered", cached=False,
        sources=(SentSource(1, "a.md", 0, 40, (0,)), SentSource(2, "a.md", 30, 70, ())),
        answer=answer, cited=(1,), unknown=(99,),
        checks=(CheckRecord("citation_precision", 0.5, ("[99]",)),
                CheckRecord("unsupported", 1.0, ("number: 42\x1b[2J",))),
        facts=(FactRecord(("30 days", "thirty days"), True), FactRecord(("refund",), False)),
    )  # fmt: skip


def test_round_trip_escapes_outside_text(tmp_path: Path) -> None:
    text = answers_jsonl([record()])
    assert text.isascii() and "\x1b" not in text and "\u202e" not in text
    (tmp_path / FILE_NAME).write_text(text)
    (back,) = read_answers(tmp_path, digest(text))
    assert back.answer == "The rate is 3.5 % [1].\\x1b[31m red\\x1b]0;pwned\\x07 \\u202eevil"
    assert back.check("unsupported") == CheckRecord("unsupported", 1.0, ("number: 42\\x1b[2J",))
    assert back.value("citation_precision") == 0.5 and back.value("completeness") is None
    assert back.facts == record().facts and back.sources == record().sources
    assert back.overlapping == 1  # 0-40 and 30-70 of a.md share 10 characters
    assert by_query([back]) == {"q-0001": {"c1": back}}


@pytest.mark.parametrize(
    ("line", "key", "words"),
    [
        ("{", None, "not JSON"),
        ('{"outcome": "exploded"}', "outcome", "outcome must be one of"),
        ("[" * 100_000, None, "nested too deeply"),
        ("1" * 5_000, None, "number too long"),
        ("[]", "outcome", "missing"),
        (
            json.dumps(
                {**json.loads(answers_jsonl([record("x")]).split("\n")[1]), "answer": "\x1b[2J"}
            ),
            "answer",
            "display rule",
        ),
        (
            json.dumps(
                {
                    **json.loads(answers_jsonl([record("x")]).split("\n")[1]),
                    "sources": [[0, "a", 1, 2, []]],
                }
            ),
            "sources",
            "starts at 1",
        ),
    ],
)
def test_refuses_out_of_shape(tmp_path: Path, line: str, key: str | None, words: str) -> None:
    (tmp_path / FILE_NAME).write_text(answers_jsonl([]) + line + "\n")
    with pytest.raises(GenerationFileError) as got:
        read_answers(tmp_path)
    assert got.value.line == 2 and got.value.key == key and words in got.value.message


def test_refuses_changed_file_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(GenerationFileError, match="no answers"):
        read_answers(tmp_path)
    (tmp_path / FILE_NAME).write_text(answers_jsonl([record()]))
    with pytest.raises(GenerationFileError, match="do not match"):
        read_answers(tmp_path, "sha256:00")

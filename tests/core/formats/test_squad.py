"""squad: paragraphs become documents, first answers become evidence, remapped."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import get, squad
from labeler.core.values import Query, Span, Status

# raw: 0-2 "Bon", 3 CR, 4 LF, 5-8 "Cafe", 9 U+0301, 10 " ", 11-12 thumbs up + skin tone,
#      13 " ", 14-15 "ok"
CONTEXT = "Bon\r\nCafe\u0301 👍🏽 ok"
# canonical: 0-2 "Bon", 3 LF, 4-7 "Café", 8 " ", 9-10 thumbs, 11 " ", 12-13 "ok"
CANONICAL = "Bon\nCafé 👍🏽 ok"
DOC = "squad/café-crème/0.txt"


def answer(text: str, start: int) -> dict[str, Any]:
    return {"text": text, "answer_start": start}


def squad_v2() -> dict[str, Any]:
    return {
        "version": "v2.0",
        "data": [
            {
                "title": "Café Crème",
                "paragraphs": [
                    {
                        "context": CONTEXT,
                        "qas": [
                            {"id": "56be4db0acb8001400a502ec", "question": " Which drink? ",
                             "answers": [answer("Cafe\u0301", 5), answer("Cafe\u0301", 5),
                                         answer("ok", 14)],
                             "is_impossible": False},
                            {"id": "5a8d7bf7df8bba001a0f9ab1", "question": "Who paid?",
                             "answers": [], "plausible_answers": [answer("Bon", 0)],
                             "is_impossible": True},
                            {"id": "not valid!", "question": "Thumbs?",
                             "answers": [answer("👍🏽", 11)]},
                        ],
                    },
                    {"context": "Second paragraph.", "qas": []},
                ],
            },
            {
                "title": "café crème",
                "paragraphs": [
                    {"context": "Other article.",
                     "qas": [{"id": "x1", "question": "Which article?",
                              "answers": [answer("Other", 0)]}]},
                ],
            },
        ],
    }  # fmt: skip


def dump(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_read_makes_documents_spans_notes_and_abstentions(tmp_path: Path) -> None:
    path = dump(tmp_path / "train.json", squad_v2())
    got = squad.read(path, Corpus.from_texts({}), existing=[Query("q-0003", "Old?")])
    assert got.documents == {
        DOC: CANONICAL,
        "squad/café-crème/1.txt": "Second paragraph.",
        "squad/café-crème-2/0.txt": "Other article.",
    }
    assert got.queries == (
        Query("56be4db0acb8001400a502ec", "Which drink?", slices=("squad",),
              notes=f"other SQuAD answers: 'ok' at {DOC} 12..14", status=Status.LABELLED,
              evidence=(Span.from_text(CANONICAL, DOC, 4, 8),)),
        Query("5a8d7bf7df8bba001a0f9ab1", "Who paid?", abstain=True, slices=("squad",),
              status=Status.LABELLED),
        Query("q-0004", "Thumbs?", slices=("squad",), status=Status.LABELLED,
              evidence=(Span.from_text(CANONICAL, DOC, 9, 11),)),
        Query("x1", "Which article?", slices=("squad",), status=Status.LABELLED,
              evidence=(Span.from_text("Other article.", "squad/café-crème-2/0.txt", 0, 5),)),
    )  # fmt: skip
    assert got.queries[0].evidence[0].quote == "Café"
    assert got.queries[2].evidence[0].quote == "👍🏽"


def test_v1_without_is_impossible_and_a_question_without_answers(tmp_path: Path) -> None:
    data = {"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": "abc", "qas": [
        {"id": "a1", "question": "B?", "answers": [answer("b", 1)]},
        {"id": "a2", "question": "Open?", "answers": []},
    ]}]}]}  # fmt: skip
    got = squad.read(dump(tmp_path / "v1.json", data), Corpus.from_texts({}), existing=())
    assert [(q.id, q.abstain, q.status, [(s.start, s.end) for s in q.evidence])
            for q in got.queries] == [
        ("a1", False, Status.LABELLED, [(1, 2)]), ("a2", False, Status.DRAFT, [])
    ]  # fmt: skip
    assert list(got.documents) == ["squad/t/0.txt"]


def round_trip_source() -> dict[str, Any]:
    """Answers repeated verbatim (as in SQuAD dev), one id in two articles, an abstention."""
    return {"version": "v2.0", "data": [
        {"title": "A", "paragraphs": [{"context": CONTEXT, "qas": [
            {"id": "s1", "question": "Which drink?",
             "answers": [answer("Cafe\u0301", 5), answer("Cafe\u0301", 5)]},
            {"id": "s2", "question": "Where?", "answers": [answer("ok", 14)]},
            {"id": "s3", "question": "Nobody knows?", "answers": [], "is_impossible": True},
        ]}]},
        {"title": "B", "paragraphs": [{"context": "Here and there.", "qas": [
            {"id": "s2", "question": "Where?", "answers": [answer("there", 9)]},
        ]}]},
    ]}  # fmt: skip


def test_write_then_read_gives_the_same_queries(tmp_path: Path) -> None:
    first = squad.read(dump(tmp_path / "in.json", round_trip_source()), Corpus.from_texts({}),
                       existing=())  # fmt: skip
    corpus = Corpus.from_texts(first.documents)
    out = tmp_path / "out.json"
    squad.write(first.queries, corpus, out)
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written == {"version": "v2.0", "data": [
        {"title": "squad/a/0.txt", "paragraphs": [{"context": CANONICAL, "qas": [
            {"id": "s1", "question": "Which drink?", "answers": [answer("Café", 4)],
             "is_impossible": False},
            {"id": "s2", "question": "Where?", "answers": [answer("ok", 12)],
             "is_impossible": False},
            {"id": "s3", "question": "Nobody knows?", "answers": [], "is_impossible": True},
        ]}]},
        {"title": "squad/b/0.txt", "paragraphs": [{"context": "Here and there.", "qas": [
            {"id": "s2", "question": "Where?", "answers": [answer("there", 9)],
             "is_impossible": False},
        ]}]},
    ]}  # fmt: skip
    again = squad.read(out, corpus, existing=())
    assert again.queries == first.queries
    assert again.documents == first.documents
    assert [s.doc for s in again.queries[1].evidence] == ["squad/a/0.txt", "squad/b/0.txt"]


def _set(data: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    target: Any = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return data


QA0 = ["data", 0, "paragraphs", 0, "qas", 0]
WHERE0 = "data[0].paragraphs[0].qas[0]"


@pytest.mark.parametrize(
    ("path", "value", "key", "offset", "message"),
    [
        ([*QA0, "answers", 1], answer("Tea", 5), f"{WHERE0}.answers[1]", 5,
         "at 5..8: file has 'Tea', text has 'Caf'"),
        ([*QA0, "answers", 2], answer("ok!", 14), f"{WHERE0}.answers[2]", 17, "out of range"),
        ([*QA0, "answers", 0, "answer_start"], "5", f"{WHERE0}.answers[0].answer_start", None,
         "must be int"),
        ([*QA0, "question"], "   ", f"{WHERE0}.question", None, "the question is empty"),
        ([*QA0, "is_impossible"], True, f"{WHERE0}.answers", None, "must have no answers"),
        (["data", 0, "paragraphs", 0, "qas", 1, "id"], "56be4db0acb8001400a502ec",
         "data[0].paragraphs[0].qas[1].id", None, "used by another question"),
        (["data", 1, "paragraphs", 0, "context"], 7, "data[1].paragraphs[0].context", None,
         "must be str"),
        (["data"], {}, "data", None, "must be list"),
    ],
)  # fmt: skip
def test_errors_name_the_key_and_offset(
    tmp_path: Path, path: list[Any], value: Any, key: str, offset: int | None, message: str
) -> None:
    file = dump(tmp_path / "bad.json", _set(squad_v2(), path, value))
    with pytest.raises(LabelError) as err:
        squad.read(file, Corpus.from_texts({}), existing=())
    assert (err.value.file, err.value.key, err.value.offset) == (str(file), key, offset)
    assert message in err.value.message


def test_a_paragraph_may_not_replace_a_document_with_other_text(tmp_path: Path) -> None:
    corpus = Corpus.from_texts({DOC: "something else"})
    file = dump(tmp_path / "in.json", squad_v2())
    with pytest.raises(LabelError) as err:
        squad.read(file, corpus, existing=())
    assert err.value.key == "data[0].paragraphs[0].context"
    assert f"document {DOC} already has other text" in err.value.message
    same = Corpus.from_texts({DOC: CANONICAL})
    assert DOC in squad.read(file, same, existing=()).documents


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    file = tmp_path / "broken.json"
    file.write_text('{"data": [\n  oops\n]}', encoding="utf-8")
    with pytest.raises(LabelError) as err:
        squad.read(file, Corpus.from_texts({}), existing=())
    assert (err.value.file, err.value.line) == (str(file), 2)


def test_the_format_registry_finds_this_module() -> None:
    assert get("squad") is squad

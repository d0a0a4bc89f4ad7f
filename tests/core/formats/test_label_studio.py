"""label-studio: tasks mapped to documents, code-point (or old UTF-16) offsets remapped."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import get, label_studio
from labeler.core.values import Boundary, Query, Span, Status

# canonical faq.md: 0-6 "Refunds", 7 " ", 8 slightly smiling face (astral: 2 UTF-16 units),
# 9 " ", 10-20 "take 5 days", 21 ".", 22 LF, 23-31 "Call  us." (two spaces)
FAQ = "Refunds 🙂 take 5 days.\nCall  us."
# The task text has CRLF, so from "Call" on raw offsets are one more than canonical ones.
FAQ_CRLF = FAQ.replace("\n", "\r\n")
OTHER = "Shipping is free."


@pytest.fixture
def corpus() -> Corpus:
    return Corpus.from_texts({"faq.md": FAQ, "other.md": OTHER})


def labels(start: int, end: int, text: str | None = None, to_name: str = "text") -> dict[str, Any]:
    value: dict[str, Any] = {"start": start, "end": end, "labels": ["Answer"]}
    if text is not None:
        value["text"] = text
    return {"from_name": "label", "to_name": to_name, "type": "labels", "value": value}


def task(data: dict[str, Any], *results: dict[str, Any]) -> dict[str, Any]:
    return {"id": 1, "data": data, "annotations": [{"id": 7, "result": list(results)}]}


def tasks() -> list[dict[str, Any]]:
    return [
        task({"text": FAQ_CRLF, "question": "How long do refunds take?"},
             labels(10, 21, "take 5 days"), labels(24, 33, "Call us.")),
        task({"text": FAQ, "doc": "faq.md"},
             {"from_name": "q", "to_name": "text", "type": "textarea",
              "value": {"text": ["Can I call?"]}},
             labels(24, 33, "Call  us.")),  # UTF-16 units: the emoji counts twice
        {"data": {"doc": "other.md", "question": "Is shipping free?"},
         "annotations": [{"was_cancelled": True, "result": [labels(0, 8)]},
                         {"result": [labels(12, 16, "free")]}]},
        task({"passage": OTHER, "question": "Where is it?", "query_id": "ship-1"},
             labels(0, 8, "Shipping", to_name="passage")),
        task({"text": FAQ, "question": "Where is it?", "query_id": "ship-1"},
             labels(0, 7)),
        {"data": {"question": "Do you sell cars?", "abstain": True}},
        {"data": {"question": "Any discounts?"}, "annotations": []},
    ]  # fmt: skip


def dump(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def faq(start: int, end: int) -> Span:
    return Span.from_text(FAQ, "faq.md", start, end)


def test_read_maps_tasks_to_documents_and_offsets_to_canonical(
    corpus: Corpus, tmp_path: Path
) -> None:
    path = dump(tmp_path / "export.json", tasks())
    got = label_studio.read(path, corpus, existing=[Query("q-0002", "is shipping FREE?")])
    ls = ("label-studio",)
    assert got.queries == (
        Query("q-0003", "How long do refunds take?", slices=ls, status=Status.LABELLED,
              evidence=(faq(10, 21), faq(23, 32))),
        Query("q-0004", "Can I call?", slices=ls, status=Status.LABELLED,
              evidence=(faq(23, 32),)),
        Query("ship-1", "Where is it?", slices=ls, status=Status.LABELLED,
              evidence=(faq(0, 7), Span.from_text(OTHER, "other.md", 0, 8))),
        Query("q-0005", "Do you sell cars?", abstain=True, slices=ls, status=Status.LABELLED),
        Query("q-0006", "Any discounts?", slices=ls, status=Status.DRAFT),
    )  # fmt: skip
    assert [s.quote for s in got.queries[0].evidence] == ["take 5 days", "Call  us."]
    assert got.warnings == (
        f"{path}, [1].annotations[0].result[1].value: offsets 24..33 read as UTF-16 units "
        "(an older Label Studio), i.e. code points 23..32",
        f"{path}, task [2]: skipped 'Is shipping free?', already query q-0002",
    )


def test_several_annotations_give_one_version_per_annotator(corpus: Corpus, tmp_path: Path) -> None:
    """Issue 11 replaces "used the first": every annotator's annotation is kept as a version
    (named by `completed_by`), and the query's own evidence waits for adjudication."""
    two = task({"text": OTHER, "question": "Free?"}, labels(12, 16))
    two["annotations"][0]["completed_by"] = {"id": 7, "email": "alice@example.org"}
    two["annotations"].append({"result": [labels(0, 8)], "completed_by": 9})
    two["annotations"].append({"result": [labels(12, 16)]})
    got = label_studio.read(dump(tmp_path / "a.json", [two]), corpus, existing=())
    assert got.queries[0].evidence == ()
    assert got.queries[0].status == Status.LABELLED
    assert [(qid, v.annotator, [(s.start, s.end) for s in v.spans]) for qid, v in got.versions] == [
        ("q-0001", "alice@example.org", [(12, 16)]),
        ("q-0001", "annotation-3", [(12, 16)]),
        ("q-0001", "user-9", [(0, 8)]),
    ]
    assert got.warnings == ()


def test_label_chooses_which_span_labels_are_evidence(corpus: Corpus, tmp_path: Path) -> None:
    one = task({"text": OTHER, "question": "Free?"}, labels(12, 16), labels(0, 8))
    one["annotations"][0]["result"][1]["value"]["labels"] = ["distractor"]
    path = dump(tmp_path / "a.json", [one])
    every = label_studio.read(path, corpus, existing=())
    assert [(s.start, s.end) for s in every.queries[0].evidence] == [(0, 8), (12, 16)]
    assert every.labels_seen == {"Answer", "distractor"}
    chosen = label_studio.read(path, corpus, existing=(), labels=frozenset({"Answer"}))
    assert [(s.start, s.end) for s in chosen.queries[0].evidence] == [(12, 16)]


def test_write_then_read_gives_the_same_queries(corpus: Corpus, tmp_path: Path) -> None:
    first = label_studio.read(dump(tmp_path / "in.json", tasks()), corpus, existing=())
    out = tmp_path / "out.json"
    label_studio.write(first.queries, corpus, out)
    again = label_studio.read(out, corpus, existing=())
    assert again.queries == first.queries
    assert again.warnings == ()


def test_write_shape(corpus: Corpus, tmp_path: Path) -> None:
    q = Query("q-0001", "Refund time?", boundary=Boundary.CONTROL, slices=("critical",),
              status=Status.REVIEWED, notes="n", evidence=(faq(10, 21),))  # fmt: skip
    out = tmp_path / "out.json"
    label_studio.write([q], corpus, out)
    assert json.loads(out.read_text(encoding="utf-8")) == [
        {"data": {"text": FAQ, "doc": "faq.md", "question": "Refund time?", "query_id": "q-0001",
                  "abstain": False, "boundary": "control", "slices": ["critical"],
                  "status": "reviewed", "notes": "n"},
         "annotations": [{"result": [
             {"id": "q-0001-0", "from_name": "label", "to_name": "text", "type": "labels",
              "value": {"start": 10, "end": 21, "text": "take 5 days", "labels": ["evidence"]}},
         ]}]},
    ]  # fmt: skip


def test_emoji_offsets_in_code_points_are_taken_as_they_are(corpus: Corpus, tmp_path: Path) -> None:
    # Current Label Studio: code points. "🙂 take" is 8..14 in code points, 8..15 in UTF-16.
    path = dump(tmp_path / "a.json", [task({"text": FAQ, "question": "Emoji?"},
                                           labels(8, 14, "🙂 take"))])  # fmt: skip
    got = label_studio.read(path, corpus, existing=())
    assert got.queries[0].evidence == (faq(8, 14),)
    assert got.warnings == ()


R0 = "[0].annotations[0].result[0].value"


@pytest.mark.parametrize(
    ("data", "result", "key", "offset", "message"),
    [
        ({"text": FAQ, "doc": "gone.md"}, labels(0, 7), "[0].data.doc", None, "not in the corpus"),
        ({"text": "Unknown text"}, labels(0, 7), "[0].data.text", None, "matches no document"),
        ({"text": OTHER, "doc": "faq.md"}, labels(0, 7), "[0].data.text", None,
         "differs from document faq.md"),
        ({"text": FAQ}, labels(0, 7, "Refund!"), R0, 0,
         "value.text 'Refund!' does not match the task text at 0..7 ('Refunds')"),
        ({"text": FAQ}, labels(30, 40), R0, 40, "out of range for faq.md"),
        ({"text": FAQ}, labels(8, 9, "?"), R0, 8, "does not match"),
        ({"text": FAQ}, {**labels(0, 7), "value": {"start": "0", "end": 7}}, f"{R0}.start",
         None, "must be int"),
        ({"doc": "faq.md"}, {"type": "labels", "value": {"start": 0}}, f"{R0}.end", None,
         "missing key 'end'"),
        ({"title": "no text here", "other": "nor here"}, labels(0, 7), "[0].data.text", None,
         "no text and no document"),
    ],
)  # fmt: skip
def test_errors_name_the_task_key_and_offset(
    corpus: Corpus,
    tmp_path: Path,
    data: dict[str, Any],
    result: dict[str, Any],
    key: str,
    offset: int | None,
    message: str,
) -> None:
    path = dump(tmp_path / "bad.json", [task({"question": "Q?", **data}, result)])
    with pytest.raises(LabelError) as err:
        label_studio.read(path, corpus, existing=())
    assert (err.value.file, err.value.key, err.value.offset) == (str(path), key, offset)
    assert message in err.value.message


@pytest.mark.parametrize(
    ("change", "key", "message"),
    [
        ({"question": "  "}, "[0].data.question", "the task has no question"),
        ({"query_id": "bad id"}, "[0].data.query_id", "invalid query id 'bad id'"),
        ({"abstain": True}, "[0].data.abstain", "abstention query but has evidence"),
        ({"boundary": "diagonal"}, "[0].data.boundary", "unknown boundary pattern"),
        ({"slices": "critical"}, "[0].data.slices", "must be list"),
    ],
)
def test_task_data_errors(
    corpus: Corpus, tmp_path: Path, change: dict[str, Any], key: str, message: str
) -> None:
    data = {"text": OTHER, "question": "Free?", **change}
    path = dump(tmp_path / "bad.json", [task(data, labels(12, 16))])
    with pytest.raises(LabelError) as err:
        label_studio.read(path, corpus, existing=())
    assert (err.value.file, err.value.key) == (str(path), key)
    assert message in err.value.message


def test_one_query_id_with_two_questions_is_refused(corpus: Corpus, tmp_path: Path) -> None:
    both = [task({"doc": "other.md", "question": q, "query_id": "x"}) for q in ("A?", "B?")]
    with pytest.raises(LabelError) as err:
        label_studio.read(dump(tmp_path / "a.json", both), corpus, existing=())
    assert err.value.key == "[1].data.question"


def test_a_file_that_is_not_a_task_list_is_refused(corpus: Corpus, tmp_path: Path) -> None:
    path = dump(tmp_path / "a.json", {"data": {}})
    with pytest.raises(LabelError, match="JSON list of tasks") as err:
        label_studio.read(path, corpus, existing=())
    assert err.value.file == str(path)


def test_a_text_shared_by_two_documents_needs_data_doc(tmp_path: Path) -> None:
    corpus = Corpus.from_texts({"a.md": "same", "b.md": "same"})
    path = dump(tmp_path / "a.json", [task({"text": "same", "question": "Q?"}, labels(0, 4))])
    with pytest.raises(LabelError, match=r"matches a\.md, b\.md"):
        label_studio.read(path, corpus, existing=())
    copied = copy.deepcopy(json.loads(path.read_text(encoding="utf-8")))
    copied[0]["data"]["doc"] = "b.md"
    (q,) = label_studio.read(dump(path, copied), corpus, existing=()).queries
    assert q.evidence[0].doc == "b.md"


def test_the_format_registry_finds_this_module() -> None:
    assert get("label-studio") is label_studio

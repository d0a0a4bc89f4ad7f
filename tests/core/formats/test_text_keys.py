"""Label Studio text keys (§14): the key a result's `to_name` names is the text, only a
short one-line value is a document id, and no error prints a whole document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import label_studio, label_studio_min

DOC = ("Closing your account\n\n" + "You can close your account in Settings. " * 140).strip()
"""A document of about 5.6 KB, like the one whose whole text an error once printed."""
QUOTE = "You can close your account in Settings."


@pytest.fixture
def corpus() -> Corpus:
    return Corpus.from_texts({"closing.md": DOC, "other.md": "Nothing here."})


def ls_task(data: dict[str, Any], to_name: str) -> list[dict[str, Any]]:
    start = DOC.index(QUOTE)
    value = {"start": start, "end": start + len(QUOTE), "text": QUOTE, "labels": ["evidence"]}
    result = {"from_name": "label", "to_name": to_name, "type": "labels", "value": value}
    return [{"id": 1, "data": data, "annotations": [{"completed_by": 1, "result": [result]}]}]


def dump(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_text_control_named_document_is_read_as_the_text(corpus: Corpus, tmp_path: Path) -> None:
    data = {"document": DOC, "question": "How do I close my account?"}
    got = label_studio.read(dump(tmp_path / "t.json", ls_task(data, "document")), corpus,
                            existing=[])  # fmt: skip
    [q] = got.queries
    assert [(s.doc, s.quote) for s in q.evidence] == [("closing.md", QUOTE)]


def test_a_long_document_value_is_text_even_without_to_name(corpus: Corpus, tmp_path: Path) -> None:
    data = {"document": DOC, "question": "How do I close my account?"}
    got = label_studio.read(dump(tmp_path / "t.json", ls_task(data, "passage")), corpus,
                            existing=[])  # fmt: skip
    assert [s.doc for s in got.queries[0].evidence] == ["closing.md"]


def test_a_short_document_id_names_the_document(corpus: Corpus, tmp_path: Path) -> None:
    data = {"body": DOC, "document": "closing.md", "question": "How do I close my account?"}
    got = label_studio.read(dump(tmp_path / "t.json", ls_task(data, "body")), corpus, existing=[])
    assert [s.doc for s in got.queries[0].evidence] == ["closing.md"]
    data["document"] = "gone.md"
    with pytest.raises(LabelError, match=r"document 'gone\.md' is not in the corpus"):
        label_studio.read(dump(tmp_path / "t.json", ls_task(data, "body")), corpus, existing=[])


def test_no_error_prints_the_whole_document(corpus: Corpus, tmp_path: Path) -> None:
    other = DOC.replace("Settings", "Preferences")  # in no document of the corpus
    data = {"document": other, "question": "How do I close my account?"}
    with pytest.raises(LabelError) as caught:
        label_studio.read(dump(tmp_path / "t.json", ls_task(data, "document")), corpus,
                          existing=[])  # fmt: skip
    assert "matches no document" in str(caught.value)
    assert len(str(caught.value)) < 600


def test_json_min_rows_read_a_document_column_as_text(corpus: Corpus, tmp_path: Path) -> None:
    start = DOC.index(QUOTE)
    row = {"id": 1, "document": DOC, "question": "How do I close my account?",
           "label": [{"start": start, "end": start + len(QUOTE), "text": QUOTE,
                      "labels": ["evidence"]}],
           "annotator": 1, "annotation_id": 3, "created_at": "", "updated_at": "",
           "lead_time": 1.0}  # fmt: skip
    got = label_studio_min.read(dump(tmp_path / "m.json", [row]), corpus, existing=[])
    [q] = got.queries
    assert [(s.doc, s.quote) for s in q.evidence] == [("closing.md", QUOTE)]
    assert q.annotator == "user-1"


def test_label_chooses_evidence_in_json_min(corpus: Corpus, tmp_path: Path) -> None:
    start = DOC.index(QUOTE)
    spans = [{"start": start, "end": start + len(QUOTE), "text": QUOTE, "labels": ["evidence"]},
             {"start": 0, "end": 7, "text": "Closing", "labels": ["distractor"]}]  # fmt: skip
    row = {"id": 1, "text": DOC, "question": "Q?", "label": spans, "annotator": "a@x.org",
           "annotation_id": 3}  # fmt: skip
    path = dump(tmp_path / "m.json", [row])
    chosen = label_studio_min.read(path, corpus, existing=[], labels=frozenset({"evidence"}))
    assert [s.quote for s in chosen.queries[0].evidence] == [QUOTE]
    assert chosen.labels_seen == {"evidence", "distractor"}
    every = label_studio_min.read(path, corpus, existing=[])
    assert len(every.queries[0].evidence) == 2

"""doccano, Prodigy, Argilla, Label Studio JSON-MIN/CSV and qrels: each imports a file as
its tool writes it, every quote checked, offset units reported, and writes back."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.core.errors import LabelError
from labeler.core.formats import get, guess

from . import fixtures as fx

RETURNS = ("help/refunds.md", 23, 44, "Returns need a label.")
CAFE = ("help/cafe.txt", 10, 26, "Café opens at 9.")


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _spans(fmt: str, path: Path) -> tuple[list[tuple[str, int, int, str]], tuple[str, ...]]:
    imported = get(fmt).read(path, fx.CORPUS, existing=())
    spans = [(s.doc, s.start, s.end, s.quote) for q in imported.queries for s in q.evidence]
    return spans, imported.warnings


@pytest.mark.parametrize(
    ("name", "text", "fmt", "expected", "unit"),
    [
        ("d.jsonl", fx.DOCCANO_LABEL, "doccano", RETURNS, "1 span(s) remapped from UTF-16"),
        ("e.jsonl", fx.DOCCANO_ENTITIES, "doccano", RETURNS, "1 span(s) remapped from UTF-16"),
        ("p.jsonl", fx.PRODIGY, "prodigy", RETURNS, "read as 1 in code points"),
        ("a.json", fx.ARGILLA_NESTED, "argilla", RETURNS, "1 span(s) remapped from UTF-16"),
        ("f.json", fx.ARGILLA_FLAT, "argilla", RETURNS, "1 span(s) remapped from UTF-16"),
        ("m.json", fx.LS_MIN, "label-studio-min", CAFE, "read as 1 in code points"),
        ("c.csv", fx.LS_CSV, "label-studio-csv", RETURNS, "1 span(s) remapped from UTF-16"),
    ],
)
def test_each_tool_file_imports_with_units_reported(
    tmp_path: Path, name: str, text: str, fmt: str, expected: tuple[str, int, int, str], unit: str
) -> None:
    path = _write(tmp_path, name, text)
    assert guess(path) == fmt
    spans, warnings = _spans(fmt, path)
    assert spans == [expected]
    assert any(unit in w for w in warnings), warnings


def test_prodigy_takes_accepted_answers_only_and_says_so(tmp_path: Path) -> None:
    imported = get("prodigy").read(_write(tmp_path, "p.jsonl", fx.PRODIGY), fx.CORPUS, existing=())
    assert [q.annotator for q in imported.queries] == ["returns-alice"]
    assert any("1 task(s) answered 'reject' were not imported" in w for w in imported.warnings)


def test_argilla_counts_discarded_responses_and_suggestions(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.json", fx.ARGILLA_NESTED)
    warnings = get("argilla").read(path, fx.CORPUS, existing=()).warnings
    assert any("1 discarded responses were not used" in w for w in warnings)
    assert any("1 suggestions were not used" in w for w in warnings)


@pytest.mark.parametrize("qrels", [fx.BEIR_QRELS, fx.TREC_QRELS])
def test_qrels_give_whole_document_evidence(tmp_path: Path, qrels: str) -> None:
    (tmp_path / "qrels").mkdir()
    _write(tmp_path, "queries.jsonl", fx.BEIR_QUERIES)
    path = _write(tmp_path / "qrels", "test.tsv", qrels)
    assert guess(path) == "qrels"
    spans, _ = _spans("qrels", path)
    assert spans == [("help/refunds.md", 0, len(fx.EMOJI_DOC), fx.EMOJI_DOC)]


@pytest.mark.parametrize(
    ("fmt", "name"),
    [("doccano", "o.jsonl"), ("prodigy", "o.jsonl"), ("argilla", "o.json"), ("qrels", "o.tsv")],
)
def test_written_files_read_back_the_same_spans(tmp_path: Path, fmt: str, name: str) -> None:
    source = get("prodigy").read(_write(tmp_path, "p.jsonl", fx.PRODIGY), fx.CORPUS, existing=())
    out = tmp_path / name
    get(fmt).write(source.queries, fx.CORPUS, out)
    assert guess(out) == fmt
    again = get(fmt).read(out, fx.CORPUS, existing=()).queries
    assert [q.text for q in again] == [fx.QUESTION]
    doc_level = fmt == "qrels"
    assert [(s.doc, s.start) for s in again[0].evidence] == [
        ("help/refunds.md", 0 if doc_level else 23)
    ]


def test_written_doccano_counts_utf16_units(tmp_path: Path) -> None:
    source = get("prodigy").read(_write(tmp_path, "p.jsonl", fx.PRODIGY), fx.CORPUS, existing=())
    get("doccano").write(source.queries, fx.CORPUS, tmp_path / "o.jsonl")
    assert '"label": [[24, 45, "evidence"]]' in (tmp_path / "o.jsonl").read_text("utf-8")


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("x.json", '[{"id": 1, "title": "no spans here"}]', "first item has keys id, title"),
        ("x.jsonl", '{"id": 1, "body": "t"}\n', "first line has keys body, id"),
        ("x.jsonl", "[1, 2]\n", "no JSON object on its first line"),
    ],
)
def test_an_unknown_shape_is_refused_with_what_was_looked_for(
    tmp_path: Path, name: str, text: str, words: str
) -> None:
    with pytest.raises(LabelError) as caught:
        guess(_write(tmp_path, name, text))
    assert words in caught.value.message
    assert "doccano (.jsonl)" in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("fmt", "name", "text", "where", "words"),
    [
        ("doccano", "d.jsonl", '{"text": "x", "label": [[0, 1]]}', "label[0]", "[start, end, tag]"),
        ("doccano", "d.jsonl", fx.DOCCANO_LABEL.replace(fx.QUESTION, ""), None, "no question"),
        ("doccano", "d.jsonl", fx.DOCCANO_LABEL.replace("[24, 45", "[24, 99"), "label[0]",
         "no offset unit places 24..99"),
        ("prodigy", "p.jsonl", fx.PRODIGY.replace('"start": 23', '"start": "23"'),
         "spans[0].start", "must be int"),
        ("label-studio-min", "m.json", fx.LS_MIN.replace("opens at 9.\", \"labels",
                                                         "opens at 8.\", \"labels"),
         "[0].label[0]", "holding 'Cafe\u0301 opens at 8.'"),
        ("argilla", "a.json", '{"records": []}', None, "JSON list"),
    ],
)  # fmt: skip
def test_hostile_records_are_refused_where_they_sit(
    tmp_path: Path, fmt: str, name: str, text: str, where: str | None, words: str
) -> None:
    with pytest.raises(LabelError) as caught:
        get(fmt).read(_write(tmp_path, name, text), fx.CORPUS, existing=())
    assert caught.value.file is not None and caught.value.file.endswith(name)
    if where is not None:
        assert caught.value.key == where
    assert words in caught.value.message


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["doccano", "prodigy", "argilla", "label-studio-min", "qrels"]),
       st.binary(max_size=120))  # fmt: skip
def test_random_bytes_give_a_label_error_or_nothing(fmt: str, data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("x.tsv" if fmt == "qrels" else "x.json")
        path.write_bytes(data)
        (Path(folder) / "queries.jsonl").write_text(fx.BEIR_QUERIES, encoding="utf-8")
        try:
            get(fmt).read(path, fx.CORPUS, existing=())
        except LabelError as exc:
            assert exc.file is not None

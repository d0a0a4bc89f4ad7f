"""Every reader refuses a question, a note or a name a terminal would act on (§13, issue 20).

One table of hostile payloads (OSC 52 clipboard, OSC 0 title, CSI 2J, an unterminated
OSC, C1 CSI, bidi overrides and isolates, a lone surrogate) fed through one table of
readers; each refusal names the file and the key (and the line where the format has
lines), and nothing is returned. A second table: evidence that cannot be read is refused,
never imported as a draft without evidence, and an empty export is an error.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evaluator import candidates
from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.labels import labelset
from labeler.core.labels.labelset import to_json
from labeler.core.values import Query, Span

TEXT = "Refunds take 30 days.\n"
CORPUS = Corpus.from_texts({"a.md": TEXT})

PAYLOADS = {
    "OSC 52 clipboard": "q \x1b]52;c;UFdORUQtQ0xJUEJPQVJE\x1b\\ ?",
    "OSC 0 title": "q \x1b]0;PWNED-TITLE\x07 ?",
    "CSI 2J": "q \x1b[2J ?",
    "unterminated OSC": "q \x1b]0;everything after this",
    "C1 CSI": "q \x9b2J ?",
    "DEL": "q \x7f ?",
    "bidi override": "q \u202eevil\u202c ?",
    "bidi isolate": "q \u2066x\u2069 ?",
    "right-to-left mark": "q \u200f ?",
    "lone surrogate": "q \ud800 ?",
}
"""Name -> a question holding it."""


def _jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def prodigy(q: str) -> tuple[str, str]:
    row = {"text": TEXT, "spans": [{"start": 0, "end": 7}], "meta": {"question": q}}
    return "in.jsonl", _jsonl([row])


def doccano(q: str) -> tuple[str, str]:
    return "in.jsonl", _jsonl([{"text": TEXT, "label": [[0, 7, "E"]], "question": q}])


def queries_txt(q: str) -> tuple[str, str]:
    return "in.txt", f"a fine question\n{q}\n"


def queries_csv(q: str) -> tuple[str, str]:
    buf = io.StringIO()
    csv.writer(buf).writerows([["question"], ["a fine question"], [q]])
    return "in.csv", buf.getvalue()


def label_studio(q: str) -> tuple[str, str]:
    task = {"data": {"text": TEXT, "question": q}, "annotations": []}
    return "in.json", json.dumps([task])


def label_studio_min(q: str) -> tuple[str, str]:
    row = {"text": TEXT, "question": q, "label": [{"start": 0, "end": 7, "text": "Refunds"}]}
    return "in.json", json.dumps([row])


def argilla(q: str) -> tuple[str, str]:
    value = [{"label": "E", "start": 0, "end": 7}]
    record = {"fields": {"text": TEXT, "question": q},
              "responses": {"evidence": [{"value": value, "user_id": "u"}]}}  # fmt: skip
    return "in.json", json.dumps([record])


def chroma_csv(q: str) -> tuple[str, str]:
    refs = json.dumps([{"content": "Refunds", "start_index": 0, "end_index": 7}])
    buf = io.StringIO()
    csv.writer(buf).writerows([["question", "references", "corpus_id"], [q, refs, "a"]])
    return "in.csv", buf.getvalue()


def squad(q: str) -> tuple[str, str]:
    qa = {"id": "x1", "question": q, "answers": [{"text": "Refunds", "answer_start": 0}]}
    data = {"data": [{"title": "a", "paragraphs": [{"context": TEXT, "qas": [qa]}]}]}
    return "in.json", json.dumps(data)


def spanlab_set(q: str) -> tuple[str, str]:
    good = Query("q-0001", "fine", evidence=(Span.from_text(TEXT, "a.md", 0, 7),))
    data = to_json([good], CORPUS)
    data["queries"][0]["text"] = q
    return "in.json", json.dumps(data)


def spanlab_notes(q: str) -> tuple[str, str]:
    data = to_json([Query("q-0001", "fine", abstain=True)], CORPUS)
    data["queries"][0]["notes"] = q
    return "in.json", json.dumps(data)


Build = Callable[[str], tuple[str, str]]
READERS: dict[str, tuple[str, Build, str]] = {
    "prodigy": ("prodigy", prodigy, "question"),
    "doccano": ("doccano", doccano, "question"),
    "queries (text)": ("queries", queries_txt, ""),
    "queries (csv)": ("queries", queries_csv, "question"),
    "label-studio": ("label-studio", label_studio, "data.question"),
    "label-studio-min": ("label-studio-min", label_studio_min, "question"),
    "argilla": ("argilla", argilla, "question"),
    "chroma-csv": ("chroma-csv", chroma_csv, "question"),
    "squad": ("squad", squad, "question"),
    "spanlab (text)": ("spanlab", spanlab_set, "queries[0]"),
    "spanlab (notes)": ("spanlab", spanlab_notes, "queries[0]"),
}
"""Reader case -> (format, file maker, what the error's key holds)."""


def read(fmt: str, path: Path) -> object:
    if fmt == "spanlab":
        return labelset.read(path, CORPUS)
    return formats.get(fmt).read(path, CORPUS, existing=())


def write(path: Path, text: str) -> None:
    # surrogatepass: a lone surrogate reaches the reader as JSON's \ud800 or raw bytes
    path.write_bytes(text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("payload", list(PAYLOADS), ids=list(PAYLOADS))
@pytest.mark.parametrize("case", list(READERS), ids=list(READERS))
def test_every_reader_refuses_a_hostile_question(case: str, payload: str, tmp_path: Path) -> None:
    fmt, build, key = READERS[case]
    name, text = build(PAYLOADS[payload])
    path = tmp_path / name
    write(path, text)
    with pytest.raises(SpanlabError) as caught:
        read(fmt, path)
    message = str(caught.value)
    assert str(path) in message, message
    if payload == "lone surrogate" and caught.value.key is None:  # no UTF-8 form: refused
        assert caught.value.offset is not None, message  # as it is decoded, at its byte
    elif key:
        assert caught.value.key is not None and key in caught.value.key, message
    assert "\x1b" not in message and "\x9b" not in message  # the message quotes no control


def test_a_question_with_newline_tab_and_emoji_still_imports(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(doccano("Wie lange\tdauert 👍🏽 e\u0301 שלום?")[1], encoding="utf-8")
    imported = formats.get("doccano").read(path, CORPUS, existing=())
    assert imported.queries[0].text == "Wie lange\tdauert 👍🏽 \u00e9 שלום?"  # NFC


@pytest.mark.parametrize(
    ("who", "problem"),
    [("../../x", "path separator"), ("a\x1b[2Jb", "control character"),
     ("x" * 65, "characters long"), ("..", "names a folder"), ("a\u202eb", "bidirectional")],
)  # fmt: skip
def test_prodigy_refuses_an_annotator_that_is_no_name(
    who: str, problem: str, tmp_path: Path
) -> None:
    row = {"text": TEXT, "spans": [{"start": 0, "end": 7}], "meta": {"question": "q?"},
           "_annotator_id": who}  # fmt: skip
    path = tmp_path / "in.jsonl"
    path.write_text(_jsonl([row]), encoding="utf-8")
    with pytest.raises(SpanlabError, match=problem) as caught:
        formats.get("prodigy").read(path, CORPUS, existing=())
    assert caught.value.file == str(path) and caught.value.line == 1
    assert caught.value.key == "_annotator_id"


# -- names in a candidates file ---------------------------------------------------------

BAD_NAMES = {
    "climbs out": ("../../pwned-by-name", "path separator"),
    "a folder": ("a/b", "path separator"),
    "backslash": ("a\\b", "path separator"),
    "dot dot": ("..", "names a folder"),
    "dot": (".", "names a folder"),
    "newline": ("a\nb", "control character"),
    "ESC": ("x\x1b]0;T\x07", "control character"),
    "bidi": ("x\u202ey", "bidirectional"),
    "long": ("n" * 5000, "5,000 characters"),
    "empty": ("", "0 characters"),
    "spaces round": (" a ", "white space"),
}


def candidates_file(name: str) -> str:
    return (
        '[settings]\nbaseline = "base"\n\n[[candidate]]\nname = "base"\nsplitter = "chars"\n'
        f'size = 10\n\n[[candidate]]\nname = {json.dumps(name)}\nsplitter = "chars"\n'
        "size = 20\n"
    )


@pytest.mark.parametrize("case", list(BAD_NAMES), ids=list(BAD_NAMES))
def test_a_candidate_name_that_is_no_name_is_refused(case: str, tmp_path: Path) -> None:
    name, problem = BAD_NAMES[case]
    path = tmp_path / "candidates.toml"
    path.write_text(candidates_file(name), encoding="utf-8")
    with pytest.raises(SpanlabError, match=problem) as caught:
        candidates.read(path)
    assert caught.value.file == str(path)
    assert caught.value.key == "candidate[1].name"
    assert caught.value.line == 9  # the [[candidate]] table that holds it


@pytest.mark.parametrize("slice_name", ["a/b", "x\x1by", "..", "a b"])
def test_a_gate_slice_that_is_no_name_is_refused(slice_name: str, tmp_path: Path) -> None:
    path = tmp_path / "candidates.toml"
    text = candidates_file("other") + f"\n[gates.slice.{json.dumps(slice_name)}]\nmax_lost = 0\n"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpanlabError) as caught:
        candidates.read(path)
    assert caught.value.key is not None and caught.value.key.startswith("gates.slice.")


# -- evidence that cannot be read --------------------------------------------------------


def argilla_value(value: object) -> tuple[str, str, str]:
    record = {"fields": {"text": TEXT, "question": "q?"},
              "responses": {"evidence": [{"value": value, "user_id": "u"}]}}  # fmt: skip
    return "argilla", "in.json", json.dumps([record])


def ls_min_label(value: object) -> tuple[str, str, str]:
    return (
        "label-studio-min",
        "in.json",
        json.dumps([{"text": TEXT, "question": "q", "label": value}]),
    )


def ls_csv_label(cell: str) -> tuple[str, str, str]:
    buf = io.StringIO()
    csv.writer(buf).writerows([["text", "question", "label"], [TEXT, "q?", cell]])
    return "label-studio-csv", "in.csv", buf.getvalue()


UNREADABLE = {
    "argilla 'oops'": (argilla_value("oops"), "[0].responses.evidence[0].value"),
    "argilla a number": (argilla_value(5), "[0].responses.evidence[0].value"),
    "argilla span without end": (argilla_value([{"start": 0}]), "evidence[0].value"),
    "label-studio-min label 5": (ls_min_label(5), "[0].label"),
    "label-studio-min label text": (ls_min_label("oops"), "[0].label"),
    "label-studio-min span without start": (ls_min_label([{"end": 3}]), "[0].label"),
    "label-studio-csv {{{": (ls_csv_label("{{{"), "label"),
    "label-studio-csv nested 65": (ls_csv_label("[" * 65 + "]" * 65), "label"),
    "label-studio-csv list of numbers": (ls_csv_label("[1, 2]"), "label"),
}


@pytest.mark.parametrize("case", list(UNREADABLE), ids=list(UNREADABLE))
def test_evidence_that_cannot_be_read_is_refused(case: str, tmp_path: Path) -> None:
    (fmt, name, text), key = UNREADABLE[case]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpanlabError) as caught:
        formats.get(fmt).read(path, CORPUS, existing=())
    assert caught.value.file == str(path)
    assert caught.value.key is not None and key in caught.value.key, str(caught.value)


def test_an_answer_to_another_question_is_not_evidence(tmp_path: Path) -> None:
    record = {"fields": {"text": TEXT, "question": "q?"},
              "responses": {"rating": [{"value": 4, "user_id": "u"}]}}  # fmt: skip
    path = tmp_path / "in.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    (query,) = formats.get("argilla").read(path, CORPUS, existing=()).queries
    assert query.evidence == ()


@pytest.mark.parametrize(
    ("fmt", "name", "text"),
    [("doccano", "in.jsonl", ""), ("doccano", "in.jsonl", "\n\n"), ("prodigy", "in.jsonl", ""),
     ("argilla", "in.json", "[]"), ("label-studio-min", "in.json", "[]")],
)  # fmt: skip
def test_an_empty_export_is_an_error(fmt: str, name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpanlabError, match="no records") as caught:
        formats.get(fmt).read(path, CORPUS, existing=())
    assert caught.value.file == str(path)


@pytest.mark.parametrize("cell", ["1_0", "١", "12345678901234567890123", "+1", "1.0", "", "1e3"])
def test_qrels_relevance_is_a_plain_bounded_integer(cell: str, tmp_path: Path) -> None:
    (tmp_path / "queries.jsonl").write_text('{"_id": "1", "text": "q?"}\n', encoding="utf-8")
    path = tmp_path / "q.tsv"
    path.write_text(f"1\t0\ta.md\t{cell}\n", encoding="utf-8")
    with pytest.raises(SpanlabError) as caught:
        formats.get("qrels").read(path, CORPUS, existing=())
    assert caught.value.file == str(path) and caught.value.line == 1


def test_qrels_relevance_takes_graded_and_negative_values(tmp_path: Path) -> None:
    (tmp_path / "queries.jsonl").write_text('{"_id": "1", "text": "q?"}\n', encoding="utf-8")
    path = tmp_path / "q.tsv"
    path.write_text("1\t0\ta.md\t3\n", encoding="utf-8")
    (query,) = formats.get("qrels").read(path, CORPUS, existing=()).queries
    assert query.evidence[0].quote == TEXT


def test_a_nul_in_a_queries_file_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("fine\nbad \x00 one\n", encoding="utf-8")
    with pytest.raises(SpanlabError, match="NUL") as caught:
        formats.get("queries").read(path, CORPUS, existing=())
    assert caught.value.file == str(path) and caught.value.line == 2


def good_and_bad(fmt: str) -> tuple[str, str]:
    """A file of the format with one readable record and one whose evidence is not."""
    good = [{"start": 0, "end": 7, "text": "Refunds"}]
    if fmt == "argilla":
        value = [{"label": "E", "start": 0, "end": 7}]
        recs = [{"fields": {"text": TEXT, "question": q},
                 "responses": {"evidence": [{"value": v, "user_id": "u"}]}}
                for q, v in (("good?", value), ("bad?", "oops"))]  # fmt: skip
        return "in.json", json.dumps(recs)
    if fmt == "label-studio-min":
        rows = [{"text": TEXT, "question": "good?", "label": good},
                {"text": TEXT, "question": "bad?", "label": 5}]  # fmt: skip
        return "in.json", json.dumps(rows)
    if fmt == "label-studio-csv":
        buf = io.StringIO()
        csv.writer(buf).writerows([["text", "question", "label"], [TEXT, "good?", json.dumps(good)],
                                   [TEXT, "bad?", "{{{"]])  # fmt: skip
        return "in.csv", buf.getvalue()
    if fmt == "doccano":
        rows = [{"text": TEXT, "label": [[0, 7, "E"]], "question": "good?"},
                {"text": TEXT, "label": [["x"]], "question": "bad?"}]  # fmt: skip
        return "in.jsonl", _jsonl(rows)
    rows = [{"text": TEXT, "spans": good, "meta": {"question": "good?"}},
            {"text": TEXT, "spans": [{"start": "0"}], "meta": {"question": "bad?"}}]  # fmt: skip
    return "in.jsonl", _jsonl(rows)


@pytest.mark.parametrize("fmt", formats.SKIPPABLE)
def test_skip_bad_skips_and_counts_what_cannot_be_read(fmt: str, tmp_path: Path) -> None:
    name, text = good_and_bad(fmt)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpanlabError) as refused:
        formats.get(fmt).read(path, CORPUS, existing=())
    assert refused.value.file == str(path)
    imported = formats.read_skipping(fmt, path, CORPUS, existing=())
    assert [q.text for q in imported.queries] == ["good?"]
    assert imported.queries[0].evidence[0].quote == "Refunds"
    assert "skipped 1 record(s) that cannot be read (--skip-bad)" in imported.summary
    assert any(w.startswith(f"skipped: {path}") for w in imported.warnings)


def test_skip_bad_is_refused_for_a_format_of_whole_files(tmp_path: Path) -> None:
    with pytest.raises(SpanlabError, match="--skip-bad applies to"):
        formats.read_skipping("squad", tmp_path / "x.json", CORPUS, existing=())


@pytest.mark.parametrize("who", ["../../x", "eve\x1b]0;T\x07", "a\u202eb"])
def test_label_studio_refuses_an_annotator_that_is_no_name(who: str, tmp_path: Path) -> None:
    result = {"type": "labels", "value": {"start": 0, "end": 7, "text": "Refunds",
                                          "labels": ["evidence"]}}  # fmt: skip
    task = {"data": {"text": TEXT, "question": "q?"},
            "annotations": [{"completed_by": {"email": who}, "result": [result]}]}  # fmt: skip
    path = tmp_path / "in.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    with pytest.raises(SpanlabError, match="annotator name") as caught:
        formats.get("label-studio").read(path, CORPUS, existing=())
    assert caught.value.key == "[0].annotations[0].completed_by"

"""queries: bare questions as drafts; duplicates of the store or the file are reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import get, queries
from labeler.core.values import Query, Status

EMPTY = Corpus.from_texts({})
EXISTING = [Query("q-0041", "How do I  get a REFUND?"), Query("intro", "Hello")]


def draft(qid: str, text: str) -> Query:
    return Query(qid, text, status=Status.DRAFT)


def test_text_file_skips_blanks_comments_and_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "misses.txt"
    # BOM, CRLF, a comment, a blank line, NFD text, a store duplicate, a file duplicate.
    path.write_bytes(
        b"\xef\xbb\xbf# production misses, week 48\r\n"
        b"  Where is my parcel?  \r\n"
        b"\r\n"
        b"how do i get a refund?\r\n" + "Cafe\u0301 hours?\n".encode() + b"WHERE is my   parcel?\n"
    )
    got = queries.read(path, EMPTY, existing=EXISTING)
    assert got.queries == (draft("q-0042", "Where is my parcel?"), draft("q-0043", "Café hours?"))
    assert got.warnings == (
        f"{path}:1: skipped a # comment line",
        f"{path}:4: skipped 'how do i get a refund?', already query q-0041",
        f"{path}:6: skipped 'WHERE is my   parcel?', already line 2",
    )
    assert got.documents == {}
    said = "2 new question(s), 2 duplicate(s), 1 comment(s)"
    assert got.summary == f"read 6 line(s) of {path}: {said}"


def test_csv_reads_the_question_column(tmp_path: Path) -> None:
    path = tmp_path / "misses.csv"
    path.write_text('id,question\n1,"Two\nlines?"\n2,\n3,Third?\n4,third?\n', encoding="utf-8")
    got = queries.read(path, EMPTY, existing=())
    assert got.queries == (draft("q-0001", "Two\nlines?"), draft("q-0002", "Third?"))
    assert got.warnings == (f"{path}:6: skipped 'third?', already line 5",)


def test_write_then_read_gives_the_same_queries(tmp_path: Path) -> None:
    qs = [draft("q-0001", "First?"), draft("q-0002", 'Café, "quoted"?')]
    for name in ("out.txt", "out.csv"):
        out = tmp_path / name
        queries.write(qs, EMPTY, out)
        assert queries.read(out, EMPTY, existing=()).queries == tuple(qs)
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == 'First?\nCafé, "quoted"?\n'
    assert (tmp_path / "out.csv").read_text(encoding="utf-8") == (
        'question\nFirst?\n"Café, ""quoted""?"\n'
    )


def test_write_puts_a_multi_line_question_on_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    queries.write([Query("q-0001", "Two\n  lines?")], EMPTY, out)
    assert out.read_text(encoding="utf-8") == "Two lines?\n"


def test_errors_name_file_line_and_offset(tmp_path: Path) -> None:
    no_column = tmp_path / "a.csv"
    no_column.write_text("text\nQ?\n", encoding="utf-8")
    bad_bytes = tmp_path / "b.txt"
    bad_bytes.write_bytes(b"fine\nbad \xc3( byte\n")
    with pytest.raises(LabelError) as missing:
        queries.read(no_column, EMPTY, existing=())
    with pytest.raises(LabelError) as undecodable:
        queries.read(bad_bytes, EMPTY, existing=())
    assert (missing.value.file, missing.value.line, missing.value.key) == (
        str(no_column), 1, "question"
    )  # fmt: skip
    assert (undecodable.value.file, undecodable.value.offset) == (str(bad_bytes), 9)
    assert "not valid UTF-8" in undecodable.value.message


def test_a_csv_record_longer_than_its_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text('question\nfine?\n"a\nb",extra\n', encoding="utf-8")
    with pytest.raises(LabelError, match="more fields than the header") as err:
        queries.read(path, EMPTY, existing=())
    assert (err.value.file, err.value.line) == (str(path), 3)


def test_a_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(LabelError, match="cannot read") as err:
        queries.read(tmp_path / "nope.txt", EMPTY, existing=())
    assert err.value.file == str(tmp_path / "nope.txt")


def test_the_format_registry_finds_this_module() -> None:
    assert get("queries") is queries

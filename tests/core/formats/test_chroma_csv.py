"""chroma-csv: offsets as Chroma's evaluator reads a file (`open(path).read()`), remapped."""

from __future__ import annotations

import csv
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.core.corpus.canonical import canonicalize
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import chroma_csv, get
from labeler.core.text.graphemes import is_boundary
from labeler.core.values import Boundary, Query, Span, Status

# bom.md as Python reads it: 0 BOM, 1-4 "Cafe", 5 U+0301, 6 " au lait.", 15 LF, 16 "The ",
# 20-24 family emoji (3 people, 2 ZWJ), 25 " fund: ", 32 "pay in 5 days", 45 ".", 46 LF.
# Canonical: the BOM and the combining mark are gone, so from "au" on it is 2 less.
BOM_MD = (
    b"\xef\xbb\xbf"
    + "Cafe\u0301 au lait.\r\nThe 👩\u200d👩\u200d👧 fund: pay in 5 days.\r\n".encode()
)
FAMILY = "👩\u200d👩\u200d👧"
# crlf.txt as Python reads it is already canonical: "alpha\nbeta\ngamma".
CRLF_TXT = b"alpha\r\nbeta\r\ngamma"


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    root = tmp_path / "corpus"
    (root / "notes").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "bom.md").write_bytes(BOM_MD)
    (root / "crlf.txt").write_bytes(CRLF_TXT)
    (root / "notes" / "a.md").write_text("note a", encoding="utf-8")
    (root / "other" / "a.txt").write_text("other a", encoding="utf-8")
    return Corpus.read(root)


def ref(content: str, start: int, end: int) -> dict[str, object]:
    return {"content": content, "start_index": start, "end_index": end}


def write_csv(path: Path, rows: list[list[object]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["question", "references", "corpus_id"])
        for row in rows:
            writer.writerow([json.dumps(c) if isinstance(c, list) else c for c in row])
    return path


def span(corpus: Corpus, doc: str, start: int, end: int) -> Span:
    return Span.from_text(corpus.text(doc), doc, start, end)


def test_offsets_count_code_points_of_the_file_as_python_reads_it(
    corpus: Corpus, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "q.csv",
        [
            ["Who pays?", [ref("Cafe\u0301", 1, 6), ref(f"{FAMILY} fund", 20, 30)], "bom"],
            ["When?", [ref("pay in 5 days", 32, 45)], "bom"],
            ["Which lines?", [ref("beta\ngamma", 6, 16)], "crlf"],
        ],
    )
    got = chroma_csv.read(path, corpus, existing=())
    assert got.queries == (
        Query(
            id="q-0001",
            text="Who pays?",
            boundary=Boundary.OTHER,
            slices=("chroma-csv",),
            status=Status.LABELLED,
            evidence=(span(corpus, "bom.md", 0, 4), span(corpus, "bom.md", 18, 28)),
        ),
        Query("q-0002", "When?", slices=("chroma-csv",), status=Status.LABELLED,
              evidence=(span(corpus, "bom.md", 30, 43),)),
        Query("q-0003", "Which lines?", slices=("chroma-csv",), status=Status.LABELLED,
              evidence=(span(corpus, "crlf.txt", 6, 16),)),
    )  # fmt: skip
    assert [s.quote for s in got.queries[0].evidence] == ["Café", f"{FAMILY} fund"]
    assert got.documents == {}
    assert got.warnings == ()


def test_write_maps_offsets_back_and_round_trips(corpus: Corpus, tmp_path: Path) -> None:
    first = write_csv(
        tmp_path / "q.csv",
        [
            ["Who pays?", [ref(f"{FAMILY} fund", 20, 30), ref("Cafe\u0301", 1, 6)], "bom"],
            ["Lines in two files?", [ref("beta", 6, 10)], "crlf"],
            ["Lines in two files?", [ref("note", 0, 4)], "notes/a"],
        ],
    )
    imported = chroma_csv.read(first, corpus, existing=())
    out = tmp_path / "out.csv"
    chroma_csv.write(imported.queries, corpus, out)
    assert out.read_text(encoding="utf-8") == (
        "question,references,corpus_id\n"
        'Who pays?,"[{""content"": ""Caf\\u00e9"", ""start_index"": 1, ""end_index"": 6}, '
        '{""content"": ""\\ud83d\\udc69\\u200d\\ud83d\\udc69\\u200d\\ud83d\\udc67 fund"", '
        '""start_index"": 20, ""end_index"": 30}]",bom\n'
        'Lines in two files?,"[{""content"": ""beta"", ""start_index"": 6, '
        '""end_index"": 10}]",crlf\n'
        'Lines in two files?,"[{""content"": ""note"", ""start_index"": 0, '
        '""end_index"": 4}]",notes/a\n'
    )
    again = chroma_csv.read(out, corpus, existing=())
    assert again.queries == imported.queries
    assert [len(q.evidence) for q in again.queries] == [2, 2]


def test_in_memory_corpus_offsets_are_canonical(tmp_path: Path) -> None:
    corpus = Corpus.from_texts({"doc.md": "\ufeffe\u0301 👍🏽 ok\r\n"})  # canonical "é 👍🏽 ok\n"
    path = write_csv(tmp_path / "q.csv", [["Ok?", [ref("ok", 5, 7)], "doc"]])
    (q,) = chroma_csv.read(path, corpus, existing=()).queries
    assert (q.evidence[0].start, q.evidence[0].end, q.evidence[0].quote) == (5, 7, "ok")


def test_ids_continue_and_existing_questions_are_reported(corpus: Corpus, tmp_path: Path) -> None:
    existing = [Query(id="q-0041", text="When  do we PAY?"), Query(id="intro", text="Hello")]
    path = write_csv(
        tmp_path / "q.csv",
        [
            ["when do we pay?", [ref("pay in 5 days", 32, 45)], "bom"],
            ["What is first?", [ref("alpha", 0, 5)], "crlf"],
        ],
    )
    got = chroma_csv.read(path, corpus, existing=existing)
    assert [(q.id, q.text) for q in got.queries] == [("q-0042", "What is first?")]
    assert got.warnings == (f"{path}:2: skipped 'when do we pay?', already query q-0041",)


def test_a_question_repeated_for_the_same_document_is_merged_with_a_warning(
    corpus: Corpus, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "q.csv",
        [
            ["Greek?", [ref("alpha", 0, 5)], "crlf"],
            ["Greek?", [ref("alpha", 0, 5), ref("gamma", 11, 16)], "crlf.txt"],
        ],
    )
    got = chroma_csv.read(path, corpus, existing=())
    assert [(s.start, s.end) for s in got.queries[0].evidence] == [(0, 5), (11, 16)]
    assert got.warnings == (
        f"{path}:3: the question of line 2 again for crlf.txt; references merged",
    )


def test_empty_references_make_a_draft_without_evidence(corpus: Corpus, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "q.csv", [["Unknown?", [], ""]])
    (q,) = chroma_csv.read(path, corpus, existing=()).queries
    assert (q.status, q.evidence, q.abstain) == (Status.DRAFT, (), False)
    out = tmp_path / "out.csv"
    chroma_csv.write([q], corpus, out)
    assert out.read_text(encoding="utf-8") == "question,references,corpus_id\nUnknown?,[],\n"


def test_multi_line_records_are_located_by_their_first_line(corpus: Corpus, tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "q.csv",
        [
            ["Two\nline question?", [ref("alpha", 0, 5)], "crlf"],
            ["Broken?", [ref("alpha", 0, 5)], "nowhere"],
        ],
    )
    with pytest.raises(LabelError) as err:
        chroma_csv.read(path, corpus, existing=())
    assert (err.value.line, err.value.key) == (4, "corpus_id")


@pytest.mark.parametrize(
    ("row", "key", "offset", "message"),
    [
        (["", [ref("alpha", 0, 5)], "crlf"], "question", None, "the question is empty"),
        (["Q?", "[{oops", "crlf"], "references", 2, "not valid JSON"),
        (["Q?", '{"content": "a"}', "crlf"], "references", None, "must be a JSON list"),
        (["Q?", [{"content": "alpha", "end_index": 5}], "crlf"], "references[0].start_index",
         None, "missing key 'start_index'"),
        (["Q?", [ref("alpha", 0, "5")], "crlf"], "references[0].end_index", None, "must be int"),  # type: ignore[arg-type]
        (["Q?", [ref("alpha", 0, 5)], "crlf.md"], "corpus_id", None, "names no document"),
        (["Q?", [ref("note", 0, 4)], "a"], "corpus_id", None, "ambiguous: notes/a.md, other/a.txt"),
        (["Q?", [ref("alpha", 0, 5), ref("Beta", 6, 10)], "crlf"], "references[1]", 6,
         "quote does not match crlf.txt at 6..10: file has 'Beta', text has 'beta'"),
        (["Q?", [ref("gamma", 11, 17)], "crlf"], "references[0]", 17, "out of range"),
        (["Q?", [ref("a", 5, 5)], "crlf"], "references[0]", 5, "out of range"),
        # The same excerpt at the offsets of the raw bytes (CRLF counted as two) is refused.
        (["Q?", [ref("beta", 7, 11)], "crlf"], "references[0]", 7, "text has 'eta\\n'"),
    ],
)  # fmt: skip
def test_errors_name_file_line_key_and_offset(
    corpus: Corpus,
    tmp_path: Path,
    row: list[object],
    key: str,
    offset: int | None,
    message: str,
) -> None:
    good: list[object] = ["Fine?", [ref("alpha", 0, 5)], "crlf"]
    path = write_csv(tmp_path / "q.csv", [good, row])
    with pytest.raises(LabelError) as err:
        chroma_csv.read(path, corpus, existing=())
    e = err.value
    assert (e.file, e.line, e.key, e.offset) == (str(path), 3, key, offset)
    assert message in e.message


def test_a_missing_column_and_bad_bytes_are_reported(corpus: Corpus, tmp_path: Path) -> None:
    no_column = tmp_path / "a.csv"
    no_column.write_text("question,references\nQ?,[]\n", encoding="utf-8")
    bad_bytes = tmp_path / "b.csv"
    bad_bytes.write_bytes(b"question,references,corpus_id\nQ\xff?,[],\n")
    with pytest.raises(LabelError) as missing:
        chroma_csv.read(no_column, corpus, existing=())
    with pytest.raises(LabelError) as undecodable:
        chroma_csv.read(bad_bytes, corpus, existing=())
    assert (missing.value.line, missing.value.key) == (1, "corpus_id")
    assert (undecodable.value.file, undecodable.value.offset) == (str(bad_bytes), 31)


def test_a_document_changed_on_disk_is_refused(corpus: Corpus, tmp_path: Path) -> None:
    assert corpus.root is not None
    (corpus.root / "crlf.txt").write_text("changed", encoding="utf-8")
    path = write_csv(tmp_path / "q.csv", [["Q?", [ref("alpha", 0, 5)], "crlf"]])
    with pytest.raises(LabelError, match="differs from the corpus"):
        chroma_csv.read(path, corpus, existing=())


def test_the_format_registry_finds_this_module() -> None:
    assert get("chroma-csv") is chroma_csv


# -- property: any canonical spans survive write -> read on files with BOM, CRLF, NFD -----

PIECES = ["a", "b", " ", "\r\n", "\n", "\r", "e\u0301", "A\u030a", "q\u0301", "é", "👍",
          "🏽", "\u200d", "\u212b", "\u1100\u1161", "\ufeff"]  # fmt: skip


def _boundaries(text: str) -> list[int]:
    """Positions a person can select: grapheme cluster boundaries (§13)."""
    return [i for i in range(len(text) + 1) if is_boundary(text, i)]


@settings(max_examples=40, deadline=None)
@given(
    docs=st.lists(
        st.tuples(st.booleans(), st.lists(st.sampled_from(PIECES), min_size=1, max_size=30)),
        min_size=1,
        max_size=3,
    ),
    picks=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 99), st.integers(1, 99)), max_size=6
    ),
)
def test_property_write_then_read_gives_the_same_queries(
    docs: list[tuple[bool, list[str]]], picks: list[tuple[int, int, int]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "corpus"
        root.mkdir()
        for i, (bom, pieces) in enumerate(docs):
            raw = "".join(pieces).encode()
            (root / f"d{i}.txt").write_bytes(b"\xef\xbb\xbf" * bom + raw)
        corpus = Corpus.read(root)
        queries: list[Query] = []
        for n, (d, a, b) in enumerate(picks):
            doc = f"d{d % len(docs)}.txt"
            cuts = _boundaries(corpus.text(doc))
            start = cuts[a % len(cuts)]
            ends = [c for c in cuts if c > start]
            if not ends:
                continue
            end = ends[b % len(ends)]
            queries.append(
                Query(f"q-{len(queries) + 1:04d}", f"question {n}", slices=("chroma-csv",),
                      status=Status.LABELLED, evidence=(span(corpus, doc, start, end),))
            )  # fmt: skip
        out = Path(tmp) / "out.csv"
        chroma_csv.write(queries, corpus, out)
        assert chroma_csv.read(out, corpus, existing=()).queries == tuple(queries)
        with out.open(encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                python_text = (root / f"{row['corpus_id']}.txt").read_text(encoding="utf-8")
                for r in json.loads(row["references"]):
                    excerpt = python_text[r["start_index"] : r["end_index"]]
                    assert canonicalize(excerpt) == r["content"]

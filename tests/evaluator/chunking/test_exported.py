"""`splitter = "chunks"`: a team's exported chunk file, by offsets or by exact text."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.candidates import parse
from evaluator.chunking import SplitterSpec, chunk_corpus
from evaluator.chunking.exported import file_digest, read_chunk_file
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError

CORPUS = Corpus.from_texts({"a.md": "Intro line.\n\nRepeat me. Repeat me.\n", "b.txt": "Café\r\n"})


def _write(tmp_path: Path, rows: list[object]) -> Path:
    path = tmp_path / "chunks.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", "utf-8")
    return path


def _spec(path: Path) -> SplitterSpec:
    return SplitterSpec("chunks", 0, options={"path": str(path)}).validate("ours")


def test_offsets_and_unique_text_both_place_chunks(tmp_path: Path) -> None:
    path = _write(tmp_path, [
        {"doc": "a.md", "start": 0, "end": 11, "prefix": "Intro"},
        {"doc": "a.md", "start": 13, "end": 34},
        {"doc": "b.txt", "text": "Cafe\u0301"},  # NFD in the export, NFC in the corpus
    ])  # fmt: skip
    chunks = chunk_corpus(_spec(path), CORPUS)
    assert [(c.doc, c.start, c.end, c.prefix) for c in chunks] == [
        ("a.md", 0, 11, "Intro"), ("a.md", 13, 34, ""), ("b.txt", 0, 4, ""),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("rows", "line", "words"),
    [
        ([{"doc": "a.md", "text": "Repeat me."}], 1, "occurs more than once (at [13, 24])"),
        ([{"doc": "a.md", "text": "Not there"}], 1, "is not in document 'a.md'"),
        ([{"doc": "a.md", "start": 0}], 1, "needs 'start' and 'end', or 'text'"),
        ([{"doc": "a.md", "start": "0", "end": 3}], 1, "'start' must be int, got str"),
        ([{"start": 0, "end": 3}], 1, "missing key 'doc'"),
        ([{"doc": "b.txt", "text": "Café"}, "[1]"], 2, "must be a JSON object"),
        ([{"doc": "b.txt", "text": "Café"}, {"doc": "zz", "start": 0, "end": 1}], 2,
         "document 'zz' is not in the corpus"),
    ],
)  # fmt: skip
def test_bad_lines_are_refused_naming_the_line(
    tmp_path: Path, rows: list[object], line: int, words: str
) -> None:
    path = _write(tmp_path, rows)
    with pytest.raises(ConfigError) as caught:
        chunk_corpus(_spec(path), Corpus.from_texts({"a.md": CORPUS.text("a.md"), "b.txt": "Café"}))
    assert (caught.value.file, caught.value.line) == (str(path), line)
    assert words in caught.value.message


def test_verification_names_the_line_of_the_bad_chunk(tmp_path: Path) -> None:
    path = _write(tmp_path, [
        {"doc": "a.md", "start": 0, "end": 11},
        {"doc": "a.md", "start": 13, "end": 34, "text": "Repeat me. Repeat us."},
    ])  # fmt: skip
    with pytest.raises(ConfigError) as caught:
        chunk_corpus(_spec(path), Corpus.from_texts({"a.md": CORPUS.text("a.md")}))
    assert "document 'a.md', line 2 at (13, 34): text differs" in caught.value.message


def test_a_document_without_chunks_is_uncovered(tmp_path: Path) -> None:
    path = _write(tmp_path, [{"doc": "b.txt", "text": "Café"}])
    with pytest.raises(ConfigError, match="character 0 \\('I'\\) is in no chunk"):
        chunk_corpus(_spec(path), CORPUS)


def test_the_file_hash_is_in_the_fingerprint_and_paths_are_relative(tmp_path: Path) -> None:
    path = _write(tmp_path, [{"doc": "b.txt", "text": "Café"}])
    raw = tomllib.loads('[settings]\nbaseline = "ours"\n[[candidate]]\nname = "ours"\n'
                        'splitter = "chunks"\noptions = { path = "chunks.jsonl" }\n')  # fmt: skip
    spec = parse(raw, file=str(tmp_path / "c.toml")).candidate("ours").spec
    assert spec.options["path"] == str(path)
    assert spec.fingerprint_fields()["version"].endswith(file_digest(str(path)))
    before = spec.fingerprint()
    _write(tmp_path, [{"doc": "b.txt", "start": 0, "end": 4}])
    assert spec.fingerprint() != before


def test_missing_path_option_is_named() -> None:
    with pytest.raises(ConfigError) as caught:
        SplitterSpec("chunks", 0, options={"file": "x"}).validate("ours")
    assert caught.value.key == "options.path"
    assert "unknown option 'file'" in caught.value.message


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_crash_the_reader(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.jsonl"
        path.write_bytes(data)
        try:
            read_chunk_file(str(path))
        except ConfigError as exc:
            assert exc.file == str(path)


def test_the_boundary_view_recuts_one_document_of_a_chunk_file(tmp_path: Path) -> None:
    # Issue 22: `show` re-cut one document from a corpus holding only it, and the chunk
    # file's other document was refused as "not in the corpus".
    from evaluator.runs.boundary import chunks_for_doc

    path = _write(tmp_path, [
        {"doc": "a.md", "start": 0, "end": 11},
        {"doc": "a.md", "start": 11, "end": 34},
        {"doc": "b.txt", "start": 0, "end": 4},
    ])  # fmt: skip
    assert [(c.doc, c.start, c.end) for c in chunks_for_doc(_spec(path), CORPUS, "b.txt")] == [
        ("b.txt", 0, 4)
    ]
    assert len(chunks_for_doc(_spec(path), CORPUS, "a.md")) == 2

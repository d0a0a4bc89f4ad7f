"""A chunk file is read bounded (§13): a regular file, sized by a stat, streamed in bounded
lines under the shared nesting and number bounds; every refusal names the chunk file and
its line, even when the candidates file that points at it is what was read."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.candidates import read
from evaluator.chunking.exported import read_chunk_file
from labeler.core.errors import ConfigError
from labeler.core.typed import MAX_CHUNK_FILE, MAX_LINE

GOOD = json.dumps({"doc": "a.md", "start": 0, "end": 4}) + "\n"


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _device(path: Path) -> Path:
    path.symlink_to("/dev/zero")
    return path


def _folder(path: Path) -> Path:
    path.mkdir()
    return path


def _bytes(data: bytes) -> Callable[[Path], Path]:
    def write(path: Path) -> Path:
        path.write_bytes(data)
        return path

    return write


def _long_line(path: Path) -> Path:
    with path.open("wb") as out:
        out.write(GOOD.encode() + b'{"doc": "a.md", "text": "')
        out.write(b"x" * (MAX_LINE + 10))
    return path


def _over_size(path: Path) -> Path:
    with path.open("wb") as out:  # sparse: the stat says 1 GiB + 1, the disk holds nothing
        out.truncate(MAX_CHUNK_FILE + 1)
    return path


DEEP = b'{"doc": "a.md", "start": 0, "end": 4, "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n"

# (case, how the chunk file is made, line named (None: the file), words the message holds)
CASES: list[tuple[str, Callable[[Path], Path], int | None, str]] = [
    ("a FIFO", _fifo, None, "the chunk file is a FIFO (named pipe), not a regular file"),
    ("/dev/zero", _device, None, "the chunk file is a character device, not a regular file"),
    ("a directory", _folder, None, "the chunk file is a directory, not a regular file"),
    ("over 1 GiB", _over_size, None, "is 1,073,741,825 bytes, over the limit of 1,073,741,824"),
    ("a 16 MiB line", _long_line, 2, "the line is longer than 16,777,216 bytes"),
    ("nested 50,000 deep", _bytes(GOOD.encode() + DEEP), 2, "nested deeper than 64 levels"),
    ("NaN offset", _bytes(b'{"doc": "a.md", "start": NaN, "end": 4}\n'), 1, "NaN is not a number"),
    ("1e400 offset", _bytes(b'{"doc": "a.md", "start": 1e400, "end": 4}\n'), 1, "not a finite"),
    ("a 30-digit offset", _bytes(b'{"doc": "a.md", "start": ' + b"9" * 30 + b', "end": 4}\n'), 1,
     "is beyond 9,007,199,254,740,992"),
    ("a float offset", _bytes(b'{"doc": "a.md", "start": 1.5, "end": 4}\n'), 1,
     "'start' must be int, got float"),
    ("a bool offset", _bytes(b'{"doc": "a.md", "start": true, "end": 4}\n'), 1,
     "'start' must be int, got bool"),
    ("not UTF-8", _bytes(GOOD.encode() + b'{"doc": "\xff"}\n'), 2, "not valid UTF-8"),
    ("a NUL in the doc", _bytes(b'{"doc": "a\\u0000", "text": "x"}\n'), 1, "holds a NUL"),
    ("a lone surrogate", _bytes(b'{"doc": "a.md", "text": "\\ud800"}\n'), 1, "lone surrogate"),
    ("not JSON", _bytes(GOOD.encode() * 2 + b"{oops\n"), 3, "not JSON"),
    ("empty", _bytes(b"\n\n"), None, "the chunk file holds no chunks"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "make", "line", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_chunk_file_is_refused_naming_the_file_and_line(
    tmp_path: Path, case: str, make: Callable[[Path], Path], line: int | None, words: str
) -> None:
    path = make(tmp_path / "chunks.jsonl")
    with pytest.raises(ConfigError) as caught:
        read_chunk_file(str(path))
    assert (caught.value.file, caught.value.line) == (str(path), line)
    assert words in caught.value.message


CANDIDATES = """[settings]
baseline = "ours"
[[candidate]]
name = "ours"
splitter = "chunks"
options = { path = "chunks.jsonl" }
"""


@pytest.mark.parametrize(("case", "make", "line", "words"), CASES, ids=[c[0] for c in CASES])
def test_read_through_the_candidates_file_the_error_still_names_the_chunk_file(
    tmp_path: Path, case: str, make: Callable[[Path], Path], line: int | None, words: str
) -> None:
    (tmp_path / "c.toml").write_text(CANDIDATES, "utf-8")
    path = make(tmp_path / "chunks.jsonl")
    with pytest.raises(ConfigError) as caught:
        read(tmp_path / "c.toml")
    assert (caught.value.file, caught.value.line) == (str(path), line)
    assert words in caught.value.message
    assert "candidate 'ours'" in caught.value.message


def test_a_line_of_exactly_the_bound_is_read(tmp_path: Path) -> None:
    text = "x" * (MAX_LINE - len('{"doc": "a.md", "text": ""}'))
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"doc": "a.md", "text": text}) + "\n", "utf-8")
    assert read_chunk_file(str(path))["a.md"][0].text == text


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
_lines = st.lists(
    st.one_of(
        st.fixed_dictionaries({"doc": _values, "start": _values, "end": _values}),
        st.fixed_dictionaries({"doc": _values, "text": _values, "prefix": _values}),
        _values,
    ).map(lambda v: json.dumps(v)),
    max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(_lines)
def test_random_json_lines_are_chunks_or_clean_errors_naming_the_file(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.jsonl"
        path.write_text("\n".join(lines), "utf-8")
        try:
            by_doc = read_chunk_file(str(path))
        except ConfigError as exc:
            assert exc.file == str(path)
        else:
            for chunks in by_doc.values():
                assert all(isinstance(c.doc, str) for c in chunks)

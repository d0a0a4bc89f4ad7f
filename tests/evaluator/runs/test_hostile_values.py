"""A run.json from elsewhere (main's run, a CI artifact) is refused at its one reader (§20):
an escape sequence or bidi control in any key or string, NaN or an absurd number anywhere, a
figure out of its measure's range, an array longer than the run declares, a file over the
size bound. Each is one RunFileError naming the file and the key path, escaped."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.pipeline.record import run_file
from evaluator.runs.model import MAX_RUN_FILE, read_run
from evaluator.runs.model_json import Reader, RunFileError
from labeler.core.display import shown
from tests.evaluator.runs.conftest import SmallRun

Doc = dict[str, Any]
OSC52 = "\x1b]52;c;QQ==\x07"
"""A clipboard write: what a terminal would run if the string reached it raw."""


@pytest.fixture(scope="module")
def good(small_run: SmallRun) -> Doc:
    return json.loads(run_file(small_run.result, include_text=False).dumps())  # type: ignore[no-any-return]


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, leaf) below `value`, in file order."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaves(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from leaves(child, (*path, i))
    else:
        yield path, value


def key_path(path: tuple[Any, ...]) -> str:
    """The key path a RunFileError names, built as the reader builds it."""
    reader = Reader(None, "f")
    for key in path:
        reader = Reader(None, "f", reader, key)
    return reader.path


def put(doc: Doc, path: tuple[Any, ...], value: Any) -> Doc:
    copy: Doc = json.loads(json.dumps(doc))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return copy


def refused(doc: Doc | str, tmp_path: Path, **kw: int) -> RunFileError:
    text = doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False)
    (tmp_path / "run.json").write_text(text, "utf-8")
    with pytest.raises(RunFileError) as info:
        read_run(tmp_path, **kw)
    assert info.value.file == str(tmp_path / "run.json")
    assert not any(c in (info.value.key or "") for c in "\x1b\x9b\u202e")  # shown escaped
    return info.value


@pytest.mark.parametrize("bad", [OSC52, "\u202e", "\x9b31m", "\x7f"],
                         ids=["OSC 52", "bidi override", "C1 CSI", "DEL"])  # fmt: skip
def test_an_unsafe_string_in_every_string_field_is_refused_by_its_key(
    good: Doc, tmp_path: Path, bad: str
) -> None:
    strings = [(p, v) for p, v in leaves(good) if isinstance(v, str)]
    assert len(strings) > 60  # every id, hash, setting, doc, chunk id, status, cause...
    for path, value in strings:
        error = refused(put(good, path, value + bad), tmp_path)
        assert error.key == key_path(path), path
        assert error.message.startswith("holds a "), error.message


def test_an_unsafe_key_in_every_free_form_table_is_refused_by_its_key(
    good: Doc, tmp_path: Path
) -> None:
    tables = [
        ("manifest", "versions"), ("manifest", "embedding"), ("manifest", "settings"),
        ("candidates", "c30", "timings"), ("candidates", "c30", "breakdowns", "doc"),
    ]  # fmt: skip
    for path in tables:
        parent = good
        for key in path:
            parent = parent[key]
        first = next(iter(parent))
        table = {(k + OSC52 if k == first else k): v for k, v in parent.items()}
        error = refused(put(good, path, table), tmp_path)
        assert error.key == key_path((*path, first + OSC52))
        assert "\x1b" not in error.key and "\\x1b" in error.key
        assert error.message == "the key holds a control character (\\x1b)"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["NaN", "inf", "-inf"])
def test_a_non_finite_number_anywhere_is_refused_by_its_key(
    good: Doc, tmp_path: Path, bad: float
) -> None:
    numbers = [(p, v) for p, v in leaves(good)
               if isinstance(v, int | float) and not isinstance(v, bool)]  # fmt: skip
    assert len(numbers) > 100
    for path, _ in numbers:
        error = refused(put(good, path, bad), tmp_path)
        assert error.key == key_path(path), path
        assert error.message == f"is {json.dumps(bad)}, not a finite number"


def _ranked(doc: Doc) -> list[Any]:
    return doc["queries"]["q-0001"]["candidates"]["c30"]["ranked"]  # type: ignore[no-any-return]


def _deeper(doc: Doc) -> Doc:
    return put(doc, ("queries", "q-0001", "candidates", "c30", "ranked"), _ranked(doc) * 2_000)


Q1 = ("queries", "q-0001")
C30 = ("candidates", "c30")
CASES: list[tuple[str, Callable[[Doc], Doc | str], str | None, str]] = [
    ("a 5,000-digit count", lambda d: json.dumps(d).replace('"k": 2', '"k": ' + "9" * 5000),
     "manifest.settings.k", "is a 5,000-digit integer, beyond 9,007,199,254,740,992"),
    ("recall above 1", lambda d: put(d, (*C30, "metrics", "evidence_recall@k"), 1.5),
     "candidates.c30.metrics.evidence_recall@k", "must lie between 0.0 and 1.0, got 1.5"),
    ("a negative chunk count", lambda d: put(d, (*C30, "metrics", "chunk_count"), -3),
     "candidates.c30.metrics.chunk_count", "must lie between 0.0 and any, got -3"),
    ("a per-query coverage above 1", lambda d: put(d, (*Q1, "candidates", "c30", "values",
     "evidence_coverage@k"), [7.0]), "queries.q-0001.candidates.c30.values.evidence_coverage@k[0]",
     "must lie between 0.0 and 1.0, got 7.0"),
    ("a negative offset", lambda d: put(d, (*Q1, "evidence", 0, "start"), -1),
     "queries.q-0001.evidence[0].start", "must lie between 0 and any, got -1"),
    ("a span ending before it starts", lambda d: put(d, (*Q1, "evidence", 0, "end"), 0),
     "queries.q-0001.evidence[0].end", "ends (0) before it starts (41)"),
    ("an evidence group of 0", lambda d: put(d, (*Q1, "evidence", 0, "group"), 0),
     "queries.q-0001.evidence[0].group", "must be a positive integer, got 0"),
    ("a negative evidence group", lambda d: put(d, (*Q1, "evidence", 0, "group"), -2),
     "queries.q-0001.evidence[0].group", "must lie between 0 and any, got -2"),
    ("an evidence group that is text", lambda d: put(d, (*Q1, "evidence", 0, "group"), "1"),
     "queries.q-0001.evidence[0].group", "an integer"),
    ("an evidence group that is true", lambda d: put(d, (*Q1, "evidence", 0, "group"), True),
     "queries.q-0001.evidence[0].group", "an integer"),
    ("an evidence group that is null", lambda d: put(d, (*Q1, "evidence", 0, "group"), None),
     "queries.q-0001.evidence[0].group", "an integer"),
    ("a negative group count", lambda d: put(d, (*C30, "breakdowns", "doc", "refunds.md",
     "queries"), -1), 'candidates.c30.breakdowns.doc["refunds.md"].queries', "must lie between 0"),
    ("a group counting more queries than the run", lambda d: put(d, (*C30, "breakdowns", "doc",
     "refunds.md", "queries"), 50), 'candidates.c30.breakdowns.doc["refunds.md"].queries',
     "counts 50 queries; the run holds 4"),
    ("a ranked list 2,000 times the depth", _deeper,
     "queries.q-0001.candidates.c30.ranked", "more than the run's depth (10)"),
    ("more span causes than spans", lambda d: put(d, (*Q1, "candidates", "c30", "span_causes"),
     [None] * 9), "queries.q-0001.candidates.c30.span_causes", "more than the query's spans (1)"),
    ("k of 0", lambda d: put(d, ("manifest", "settings", "k"), 0), "manifest.settings.k",
     "k must be at least 1, got 0"),
    ("depth below k", lambda d: put(d, ("manifest", "settings", "depth"), 1),
     "manifest.settings.depth", "depth (1) must be at least k (2)"),
    ("an unknown boundary", lambda d: put(d, (*Q1, "boundary"), "anything"),
     "queries.q-0001.boundary", "'anything' is not one of"),
    ("a slice that is a path", lambda d: put(d, (*Q1, "slices"), ["../x"]),
     "queries.q-0001.slices[0]", "is not a slice name: '../x'"),
    ("a document outside the corpus", lambda d: put(d, (*Q1, "evidence", 0, "doc"), "../etc"),
     "queries.q-0001.evidence[0].doc", "invalid document id '../etc'"),
    ("a newline in a setting", lambda d: put(d, ("manifest", "settings", "embedding"), "a\nb"),
     "manifest.settings.embedding", "holds a control character (\\x0a)"),
    ("a p-value above 1", lambda d: put(d, ("comparisons", "c30", "significance", "mcnemar_p"),
     2.0), "comparisons.c30.significance.mcnemar_p", "must lie between 0.0 and 1.0"),
    ("a negative run time", lambda d: put(d, ("seconds",), -1.0), "seconds",
     "must lie between 0.0 and any"),
    ("100,000-deep nesting", lambda d: json.dumps(put(d, ("manifest", "versions"), {})).replace(
        '"versions": {}', '"versions": ' + "[" * 100_000 + "]" * 100_000), None,
     "the run file is nested too deep to read"),
]  # fmt: skip


@pytest.mark.parametrize(("make", "key", "words"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_a_value_out_of_bounds_is_one_error_naming_its_key(
    good: Doc, tmp_path: Path, make: Callable[[Doc], Doc | str], key: str | None, words: str
) -> None:
    error = refused(make(good), tmp_path)
    assert error.key == key
    assert words in error.message
    assert "\n" not in str(error).split("\nhint:")[0]  # one line, then the hint


def test_a_file_over_the_bound_is_refused_by_its_size_before_it_is_read(
    good: Doc, tmp_path: Path
) -> None:
    error = refused(good, tmp_path, limit=1000)
    size = (tmp_path / "run.json").stat().st_size
    assert error.message == f"the run file is {size:,} bytes, over the limit of 1,000 bytes"
    with (tmp_path / "run.json").open("r+b") as f:  # sparse: 1.5 GB that takes no disk
        f.truncate(1_500_000_000)
    with pytest.raises(RunFileError) as info:
        read_run(tmp_path)
    assert info.value.message == (
        f"the run file is 1,500,000,000 bytes, over the limit of {MAX_RUN_FILE:,} bytes"
    )
    assert str(tmp_path / "run.json") in str(info.value)


def test_the_error_shows_a_hostile_key_escaped(good: Doc, tmp_path: Path) -> None:
    doc = put(good, ("manifest", "versions"), {"numpy\u202e" + OSC52: "2"})
    error = refused(doc, tmp_path)
    assert str(error) == shown(str(error), lines=True)  # nothing left to escape

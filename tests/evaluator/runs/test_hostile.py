"""Whatever is in a run.json — truncated, not JSON, the wrong shape, random bytes — reading
it raises one SpanlabError naming the file and, where it can, the key; never a KeyError."""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.pipeline.record import run_file
from evaluator.runs.model import read_run
from evaluator.runs.model_json import RunFileError
from labeler.core.errors import SpanlabError
from tests.evaluator.runs.conftest import SmallRun

Doc = dict[str, Any]


@pytest.fixture(scope="module")
def good(small_run: SmallRun) -> str:
    """A valid run.json, as text."""
    return run_file(small_run.result, include_text=False).dumps()


def edit(change: Callable[[Doc], object]) -> Callable[[str], str]:
    """A hostile file made from the good one by changing its parsed document in place."""

    def make(text: str) -> str:
        doc = json.loads(text)
        change(doc)
        return json.dumps(doc)

    return make


def rename(old: str, new: str) -> Callable[[str], str]:
    """A hostile file where every `old` (a JSON string, key or value) is the name `new`."""
    return lambda text: text.replace(old, json.dumps(new))


def no_baseline(doc: Doc) -> None:
    for cand in doc["candidates"].values():
        cand["baseline"] = False


def two_baselines(doc: Doc) -> None:
    for cand in doc["candidates"].values():
        cand["baseline"] = True


CASES: list[tuple[str, Callable[[str], str], str | None, str]] = [
    ("truncated", lambda t: t[: len(t) // 2], None, "not JSON"),
    ("empty", lambda t: "", None, "not JSON"),
    ("an array", lambda t: "[]", None, "must be an object, not an array"),
    ("a number", lambda t: "3", None, "must be an object, not a number"),
    ("no format", edit(lambda d: d.pop("format")), "format", "missing"),
    ("another format", edit(lambda d: d.update(format="other/2")), "format", "not a spanlab run"),
    ("no candidates", edit(lambda d: d.pop("candidates")), "candidates", "missing"),
    ("no baseline", edit(no_baseline), "candidates", "exactly one candidate"),
    ("two baselines", edit(two_baselines), "candidates", "exactly one candidate"),
    ("candidates a list", edit(lambda d: d.update(candidates=[])), "candidates",
     "must be an object, not an array"),
    ("seconds a string", edit(lambda d: d.update(seconds="fast")), "seconds",
     "must be a number, not a string"),
    ("passed a number", edit(lambda d: d.update(passed=1)), "passed", "must be a boolean"),
    ("k a string", edit(lambda d: d["manifest"]["settings"].update(k="5")),
     "manifest.settings.k", "must be an integer, not a string"),
    ("k a float", edit(lambda d: d["manifest"]["settings"].update(k=5.5)),
     "manifest.settings.k", "must be an integer, not a number"),
    ("no corpus hash", edit(lambda d: d["manifest"].pop("corpus_hash")),
     "manifest.corpus_hash", "missing"),
    ("a metric a string", edit(lambda d: d["candidates"]["c30"]["metrics"].update(
        chunk_count="many")), "candidates.c30.metrics.chunk_count", "must be a number"),
    ("an offset a string", edit(lambda d: d["queries"]["q-0001"]["evidence"][0].update(
        start="41")), "queries.q-0001.evidence[0].start", "must be an integer"),
    ("a short ranked entry", edit(lambda d: d["queries"]["q-0001"]["candidates"]["c30"][
        "ranked"][0].pop()), "queries.q-0001.candidates.c30.ranked[0]", "not 4 items"),
    ("an unknown status", edit(lambda d: d["queries"]["q-0001"]["candidates"]["c30"].update(
        status="won")), "queries.q-0001.candidates.c30.status", "'won' is not one of"),
    ("an unknown cause", edit(lambda d: d["comparisons"]["c30"]["queries"]["q-0001"].update(
        cause="bad luck")), "comparisons.c30.queries.q-0001.cause", "is not one of"),
    ("a query without a candidate", edit(lambda d: d["queries"]["q-0002"]["candidates"].pop(
        "c30")), "queries.q-0002.candidates", "must hold every candidate"),
    ("a comparison of an unknown query", edit(lambda d: d["comparisons"]["c30"][
        "queries"].update(x={**d["comparisons"]["c30"]["queries"]["q-0001"], "query": "x"})),
     "comparisons.c30", "unknown query 'x'"),
    ("a comparison of the baseline", edit(lambda d: d["comparisons"].update(
        {"c60-ov20": d["comparisons"]["c30"]})), "comparisons.c60-ov20", "compares no candidate"),
    ("no interval fields", edit(lambda d: d["comparisons"]["c30"]["significance"].update(
        recall_interval={})), "comparisons.c30.significance.recall_interval.mean_difference",
     "missing"),
    ("a gate without a limit", edit(lambda d: d["gates"][0].pop("limit")), "gates[0].limit",
     "missing"),
    ("a doc breakdown a list", edit(lambda d: d["candidates"]["c30"]["breakdowns"][
        "doc"].update({"refunds.md": []})), 'candidates.c30.breakdowns.doc["refunds.md"]',
     "must be an object"),
    # The walk at the edge finds these first, at the key itself, shown escaped (§20).
    ("a candidate name with ESC", rename('"c30"', "c\x1b]52;c;UA==\x1b\\"),
     'candidates["c\\x1b]52;c;UA==\\x1b\\"]', "the key holds a control character (\\x1b)"),
    ("a candidate name with a lone surrogate", lambda t: t.replace('"c30"', '"c\\ud800"'),
     'candidates["c\\ud800"]', "the key holds a lone surrogate"),
    ("a candidate name that is a path", rename('"c30"', "../../pwned"), "candidates",
     "path separator"),
    ("a query id with ESC", rename('"q-0001"', "q\x1b]0;T\x07"),
     'comparisons.c30.queries["q\\x1b]0;T\\x07"]', "the key holds a control character"),
]  # fmt: skip


@pytest.mark.parametrize(("make", "key", "words"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_a_hostile_run_json_is_one_clear_error(
    good: str, tmp_path: Path, make: Callable[[str], str], key: str | None, words: str
) -> None:
    (tmp_path / "run.json").write_text(make(good), "utf-8")
    with pytest.raises(RunFileError) as info:
        read_run(tmp_path)
    assert info.value.file == str(tmp_path / "run.json")
    assert info.value.key == key
    assert words in info.value.message
    assert str(tmp_path / "run.json") in str(info.value)


def test_a_truncated_file_names_its_line_and_offset(good: str, tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text(good[:200], "utf-8")
    with pytest.raises(RunFileError) as info:
        read_run(tmp_path)
    assert info.value.line == 1  # written compact: one line, so the offset says where
    assert info.value.offset is not None and 0 < info.value.offset <= 200
    assert f"offset {info.value.offset}" in str(info.value)
    (tmp_path / "run.json").write_text(json.dumps(json.loads(good), indent=1)[:200], "utf-8")
    with pytest.raises(RunFileError) as info:
        read_run(tmp_path)
    assert info.value.line is not None and info.value.line > 1  # an indented one: its line


def test_a_missing_or_binary_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RunFileError, match="no such run"):
        read_run(tmp_path)
    (tmp_path / "run.json").write_bytes(b"\xff\xfe{}")
    with pytest.raises(RunFileError, match="not UTF-8"):
        read_run(tmp_path)
    (tmp_path / "run.json").unlink()
    (tmp_path / "run.json").mkdir()
    with pytest.raises(RunFileError, match="the run file is a directory, not a regular file"):
        read_run(tmp_path)


def test_nan_where_a_number_is_wanted_is_refused_by_its_key(good: str, tmp_path: Path) -> None:
    """NaN passed `gate --against` before §20: every number is finite, or refused by key."""
    doc = json.loads(good)
    doc["candidates"]["c30"]["metrics"]["chroma_iou"] = math.nan
    (tmp_path / "run.json").write_text(json.dumps(doc), "utf-8")
    with pytest.raises(RunFileError) as info:
        read_run(tmp_path)
    assert info.value.key == "candidates.c30.metrics.chroma_iou"
    assert info.value.message == "is NaN, not a finite number"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_raise_only_spanlab_errors(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "run.json").write_bytes(data)
        with pytest.raises(SpanlabError) as info:
            read_run(Path(tmp))
        assert info.value.file == str(Path(tmp) / "run.json")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                  max_size=3),
    max_leaves=6,
)  # fmt: skip
"""Any JSON value, to put where a run's value was."""


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        items: list[tuple[Any, Any]] = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        items = []
    for key, child in items:
        found += _nodes(child, (*path, key))
    return found


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_value_anywhere_reads_or_raises_a_spanlab_error(good: str, data: st.DataObject) -> None:
    doc = json.loads(good)
    paths = _nodes(doc)[1:]
    path = data.draw(st.sampled_from(paths))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = data.draw(JSON)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "run.json").write_text(json.dumps(doc), "utf-8")
        try:
            run = read_run(Path(tmp))
        except SpanlabError as exc:
            assert exc.file == str(Path(tmp) / "run.json")
        else:
            assert run.baseline in run.candidates

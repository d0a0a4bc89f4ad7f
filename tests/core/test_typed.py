"""One type rule for every file reader: a bool is never a number, an int may be a float.

First the rule itself, values × kinds; then each reader that uses it (the label set, a
format reader, the candidates file, spanlab.toml), showing it refuses with its own error
type, wording and key path, and accepts what it accepted before.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from evaluator import candidates
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError, LabelError, SpanlabError
from labeler.core.formats import squad
from labeler.core.labels import labelset
from labeler.core.project import config
from labeler.core.typed import Kind, accepts
from labeler.core.values import Boundary, Query, Span, Status

MISSING = object()
"""Stands for a key taken out of the file."""


def _set(data: Any, path: list[Any], value: Any) -> Any:
    data = copy.deepcopy(data)
    target = data
    for step in path[:-1]:
        target = target[step]
    if value is MISSING:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("value", "kind", "accepted"),
    [
        (True, bool, True),
        (False, bool, True),
        (1, bool, False),
        (True, int, False),
        (False, float, False),
        (True, (int, float), False),
        (True, (bool, int), True),
        (1, int, True),
        (1.0, int, False),
        (1, float, True),
        (0.8, float, True),
        (1, (int, float), True),
        ("1", int, False),
        ("a", str, True),
        (True, str, False),
        (None, (str, type(None)), True),
        (0, (str, type(None)), False),
        ([], list, True),
        ({}, list, False),
        ({}, dict, True),
    ],
)
def test_the_rule(value: object, kind: Kind, accepted: bool) -> None:
    assert accepts(value, kind) is accepted


def refusal(error: SpanlabError, key: str, words: str) -> None:
    assert error.key == key
    assert f"key {key}" in str(error)  # the line the CLI prints names the key path
    assert words in error.message


# -- the label set ---------------------------------------------------------------------

TEXT = "Refunds within 30 days.\n"
CORPUS = Corpus.from_texts({"a.md": TEXT})
QUERY = labelset.query_json(
    Query("q-0001", "How long?", boundary=Boundary.CONTROL, status=Status.LABELLED,
          evidence=(Span.from_text(TEXT, "a.md", 0, 7),))
)  # fmt: skip


@pytest.mark.parametrize(
    ("path", "value", "key", "words"),
    [
        (["abstain"], False, None, None),
        (["evidence", 0, "start"], 0, None, None),
        (["abstain"], 1, "queries[3].abstain", "'abstain' must be bool, got int"),
        (["abstain"], "no", "queries[3].abstain", "'abstain' must be bool, got str"),
        (["id"], True, "queries[3].id", "'id' must be str, got bool"),
        (["evidence", 0, "start"], False, "queries[3].evidence[0].start",
         "'start' must be int, got bool"),
        (["evidence", 0, "end"], 7.0, "queries[3].evidence[0].end",
         "'end' must be int, got float"),
        (["slices"], "critical", "queries[3].slices", "'slices' must be list, got str"),
        (["status"], MISSING, "queries[3].status", "missing key 'status'"),
    ],
)  # fmt: skip
def test_label_set(path: list[Any], value: Any, key: str | None, words: str | None) -> None:
    raw = _set(QUERY, path, value)
    if key is None:
        assert labelset.parse_query(raw, CORPUS, "queries[3]").id == "q-0001"
        return
    with pytest.raises(LabelError) as err:
        labelset.parse_query(raw, CORPUS, "queries[3]")
    assert words is not None
    refusal(err.value, key, words)


# -- a format reader (squad; every format reader shares the same place) -------------------

SQUAD = {
    "version": "v2.0",
    "data": [{"title": "Drinks", "paragraphs": [{"context": "Bon Cafe ok", "qas": [
        {"id": "s1", "question": "Which drink?", "is_impossible": False,
         "answers": [{"text": "Cafe", "answer_start": 4}]},
    ]}]}],
}  # fmt: skip
QA = ["data", 0, "paragraphs", 0, "qas", 0]
AT = "data[0].paragraphs[0].qas[0]"


@pytest.mark.parametrize(
    ("path", "value", "key", "words"),
    [
        ([*QA, "is_impossible"], False, None, None),
        ([*QA, "answers", 0, "answer_start"], 4, None, None),
        ([*QA, "is_impossible"], 0, f"{AT}.is_impossible", "must be bool, got int"),
        ([*QA, "answers", 0, "answer_start"], True, f"{AT}.answers[0].answer_start",
         "must be int, got bool"),
        ([*QA, "answers", 0, "answer_start"], 4.0, f"{AT}.answers[0].answer_start",
         "must be int, got float"),
        ([*QA, "question"], True, f"{AT}.question", "must be str, got bool"),
        ([*QA, "question"], MISSING, f"{AT}.question", "missing key 'question'"),
        ([*QA, "answers", 0], 4, f"{AT}.answers[0]", "must be an object"),
    ],
)  # fmt: skip
def test_format_reader(
    tmp_path: Path, path: list[Any], value: Any, key: str | None, words: str | None
) -> None:
    file = tmp_path / "squad.json"
    file.write_text(json.dumps(_set(SQUAD, path, value)), encoding="utf-8")
    if key is None:
        (q,) = squad.read(file, Corpus.from_texts({}), existing=()).queries
        assert q.text == "Which drink?"
        return
    with pytest.raises(LabelError) as err:
        squad.read(file, Corpus.from_texts({}), existing=())
    assert err.value.file == str(file)
    assert words is not None
    refusal(err.value, key, words)


# -- the candidates file ---------------------------------------------------------------

CANDIDATES = {
    "settings": {"baseline": "w10", "k": 3, "coverage_threshold": 0.8},
    "candidate": [{"name": "w10", "splitter": "words", "size": 10}],
    "gates": {"max_lost": 1, "slice": {"critical": {"max_lost": 0}}},
}


@pytest.mark.parametrize(
    ("path", "value", "key", "words"),
    [
        (["settings", "coverage_threshold"], 1, None, None),
        (["settings", "duplicate_threshold"], 0.5, None, None),
        (["gates", "min_recall_delta"], 0, None, None),
        (["settings", "k"], True, "k", "[settings]: 'k' has the wrong type (bool)"),
        (["settings", "k"], 3.0, "k", "[settings]: 'k' has the wrong type (float)"),
        (["settings", "coverage_threshold"], True, "coverage_threshold",
         "[settings]: 'coverage_threshold' has the wrong type (bool)"),
        (["settings", "coverage_threshold"], "0.8", "coverage_threshold",
         "[settings]: 'coverage_threshold' has the wrong type (str)"),
        (["candidate", 0, "size"], True, "size",
         "candidate 'w10': 'size' has the wrong type (bool)"),
        (["gates", "max_lost"], True, "max_lost", "gates: max_lost must be a number"),
        (["gates", "slice", "critical", "max_lost"], False, "max_lost",
         "gates.slice.critical: max_lost must be a number"),
    ],
)  # fmt: skip
def test_candidates_file(path: list[Any], value: Any, key: str | None, words: str | None) -> None:
    data = _set(CANDIDATES, path, value)
    if key is None:
        assert candidates.parse(data, file="c.toml").settings.baseline == "w10"
        return
    with pytest.raises(ConfigError) as err:
        candidates.parse(data, file="c.toml")
    assert err.value.file == "c.toml"
    assert words is not None
    refusal(err.value, key, words)


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('corpus = "docs"', None),
        ("corpus = 1", "corpus"),
        ("db = true", "db"),
        ("chroma_url = 8000", "chroma_url"),
        ('encoding = ["utf-8"]', "encoding"),
        ("embedding = { name = 'minilm' }", "embedding"),
    ],
)
def test_spanlab_toml(tmp_path: Path, line: str, key: str | None) -> None:
    (tmp_path / config.CONFIG_NAME).write_text(line + "\n", encoding="utf-8")
    if key is None:
        assert config.load(tmp_path).corpus == tmp_path / "docs"
        return
    with pytest.raises(ConfigError) as caught:
        config.load(tmp_path)
    assert caught.value.key == key
    assert f"{key!r} must be a string" in str(caught.value)
    assert config.CONFIG_NAME in str(caught.value)


@pytest.mark.parametrize(("line", "trim"), [("", True), ("trim_spans = false", False),
                                            ("trim_spans = true", True)])  # fmt: skip
def test_trim_spans_defaults_on_and_round_trips(tmp_path: Path, line: str, trim: bool) -> None:
    (tmp_path / config.CONFIG_NAME).write_text(line + "\n", encoding="utf-8")
    loaded = config.load(tmp_path)
    assert loaded.trim_spans is trim
    config.write(loaded)
    assert config.load(tmp_path).trim_spans is trim

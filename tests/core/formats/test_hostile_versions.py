"""Annotator names that become versions only follow the names rule too (§13, §3).

A double-annotated task gives each annotator a version and the query itself nobody, so the
Query's own check never sees those names: every reader's records are checked as names at
the key they came from, and `--as-version` checks whose versions a file holds (its
`--version-of`, or a doccano member file's name).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from labeler.core import formats
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.store import Store
from tests.conftest import write_corpus

TEXT = "Refunds take 30 days.\n"
CORPUS = Corpus.from_texts({"a.md": TEXT})
EVIL = "eve\x1b]0;T\x07"
SPAN = [{"start": 0, "end": 7, "text": "Refunds", "labels": ["evidence"]}]


def _min_rows(second: str) -> list[dict[str, object]]:
    return [{"id": 1, "text": TEXT, "question": "q?", "label": SPAN, "annotator": who,
             "annotation_id": n} for n, who in ((1, "alice"), (2, second))]  # fmt: skip


def test_json_min_refuses_a_version_only_annotator(tmp_path: Path) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(_min_rows(EVIL)), encoding="utf-8")
    with pytest.raises(SpanlabError, match="annotator name holds a control") as caught:
        formats.get("label-studio-min").read(path, CORPUS, existing=())
    assert caught.value.file == str(path) and caught.value.key == "[1].annotator"


def test_label_studio_csv_refuses_a_version_only_annotator(tmp_path: Path) -> None:
    buf = io.StringIO()
    rows = [{**r, "label": json.dumps(r["label"])} for r in _min_rows("a/b")]
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    path = tmp_path / "in.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    with pytest.raises(SpanlabError, match="path separator") as caught:
        formats.get("label-studio-csv").read(path, CORPUS, existing=())
    # the text's newline makes each row two lines: the second row starts on line 4
    assert caught.value.line == 4 and caught.value.key == "annotator"


def test_label_studio_json_refuses_a_name_listed_in_data_annotators(tmp_path: Path) -> None:
    result = {
        "type": "labels",
        "from_name": "label",
        "to_name": "text",
        "value": {"start": 0, "end": 7, "text": "Refunds", "labels": ["evidence"]},
    }
    task = {"data": {"text": TEXT, "question": "q?", "annotators": ["alice", EVIL]},
            "annotations": [{"result": [result]}, {"result": [result]}]}  # fmt: skip
    path = tmp_path / "in.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    with pytest.raises(SpanlabError, match="annotator name") as caught:
        formats.get("label-studio").read(path, CORPUS, existing=())
    assert caught.value.key == "[0].data.annotators[1]"


def test_argilla_refuses_a_second_users_id_at_its_key(tmp_path: Path) -> None:
    value = [{"label": "evidence", "start": 0, "end": 7}]
    record = {"id": "r1", "fields": {"text": TEXT, "question": "q?"}, "metadata": {},
              "responses": {"evidence": [{"value": value, "user_id": "u-a"},
                                         {"value": value, "user_id": "x\u202ey"}]}}  # fmt: skip
    path = tmp_path / "in.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(SpanlabError, match="bidirectional") as caught:
        formats.get("argilla").read(path, CORPUS, existing=())
    assert caught.value.key == "[0].responses.evidence[1].user_id"


def test_skip_bad_keeps_label_with_json_min(tmp_path: Path) -> None:
    """`--skip-bad` and `--label` together: the bad row is skipped, the label still chooses."""
    other = [{"start": 8, "end": 12, "text": "take", "labels": ["distractor"]}]
    rows = [{"text": TEXT, "question": "q?", "label": [*SPAN, *other]},
            {"text": TEXT, "question": "bad?", "label": "oops"}]  # fmt: skip
    path = tmp_path / "in.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    got = formats.read_skipping(
        "label-studio-min", path, CORPUS, existing=(), labels=frozenset({"evidence"})
    )
    [q] = got.queries
    assert [s.quote for s in q.evidence] == ["Refunds"]
    assert got.labels_seen == {"evidence", "distractor"}
    assert "skipped 1 record(s)" in got.summary


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": TEXT})
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    return tmp_path


def _doccano(path: Path) -> Path:
    path.write_text(json.dumps({"text": TEXT, "label": [[0, 7, "evidence"]], "question": "q?"})
                    + "\n", encoding="utf-8")  # fmt: skip
    return path


def _queries() -> int:
    store = Store.open(Path(".spanlab/labels.db"), create=False)
    try:
        return store.count("queries")
    finally:
        store.close()


def test_version_of_must_be_a_name(project: Path) -> None:
    path = _doccano(project / "alice.jsonl")
    args = ["labels", "import", str(path), "--as-version", "--version-of", "../../x"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2
    assert "--version-of" in done.stderr and "path separator" in done.stderr
    assert _queries() == 0


def test_a_doccano_member_file_name_must_be_a_name(project: Path) -> None:
    path = _doccano(project / "eve\x1b[2J.jsonl")
    done = CliRunner().invoke(app, ["labels", "import", str(path), "--as-version"])
    assert done.exit_code == 2
    assert "control character" in done.stderr and "\x1b" not in done.stderr
    assert _queries() == 0

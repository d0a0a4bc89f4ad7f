"""Every run spanlab writes, spanlab reads back (§21): what its reader would refuse is
refused at write time, exit 2 naming the key, before anything is written; and `show` reads
the runs of a candidate cut by a chunk file (no unit of its own).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from evaluator.runs.folder import write_run
from evaluator.runs.index import find_run
from evaluator.runs.model import read_run
from evaluator.runs.model_json import RunFileError
from labeler.cli import app
from labeler.core.store import Store
from labeler.core.values import Span
from tests.conftest import write_corpus

TEXT = "Refunds take 30 days.\nShipping is free over 50 EUR.\n"
CANDIDATES = """
[settings]
baseline = "file"
k = 1
retriever = "lexical"

[[candidate]]
name = "file"
splitter = "chunks"
options = { path = "chunks.jsonl" }

[[candidate]]
name = "c20"
splitter = "chars"
size = 20
"""
CHUNKS = [{"doc": "a.md", "start": 0, "end": 10}, {"doc": "a.md", "start": 10, "end": 52}]
"""The file's first chunk cuts the evidence (0..21) at 10."""


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": TEXT})
    (tmp_path / "q.txt").write_text("How long do refunds take?\n", encoding="utf-8")
    (tmp_path / "c.toml").write_text(CANDIDATES, encoding="utf-8")
    lines = "".join(json.dumps(c) + "\n" for c in CHUNKS)
    (tmp_path / "chunks.jsonl").write_text(lines, encoding="utf-8")
    assert run("init", "corpus").exit_code == 0
    assert run("labels", "import", "q.txt").exit_code == 0
    store = Store.open(tmp_path / ".spanlab" / "labels.db", create=False)
    store.add_span("q-0001", Span.from_text(TEXT, "a.md", 0, 21), TEXT, annotator="me")
    store.close()
    return tmp_path


def runs(project: Path) -> list[Path]:
    folder = project / ".spanlab" / "runs"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_show_reads_a_run_of_a_chunk_file_candidate(project: Path) -> None:
    assert run("eval", "c.toml").exit_code == 0
    done = run("show", "latest", "q-0001")
    assert done.exit_code == 0, done.output
    assert (
        'e1 file: cut at "funds ta|ke 30 da" at 10; fits one chunk, but a boundary falls '
        "inside it: a split at its edges, or overlap, would hold it"
    ) in done.stdout
    assert run("show", "latest", "q-0001", "--candidate", "c20").exit_code == 0


def test_a_group_no_run_can_hold_is_refused_in_a_label_set(project: Path) -> None:
    assert run("labels", "export", "frozen.json").exit_code == 0
    data = json.loads((project / "frozen.json").read_text(encoding="utf-8"))
    data["format"] = "spanlab-labels/2"
    data["queries"][0]["evidence"][0]["group"] = 2**63 - 1
    (project / "frozen.json").write_text(json.dumps(data), encoding="utf-8")
    done = run("eval", "c.toml", "--labels", "frozen.json")
    assert done.exit_code == 2, done.output
    assert done.stderr == (
        "error: frozen.json: the integer 9223372036854775807… is beyond 9,007,199,254,740,992\n"
    )
    assert runs(project) == []


def test_a_group_no_run_can_hold_is_refused_in_the_store(project: Path) -> None:
    conn = sqlite3.connect(project / ".spanlab" / "labels.db")
    conn.execute("UPDATE spans SET grp = ?", (2**63 - 1,))
    conn.commit()
    conn.close()
    done = run("eval", "c.toml")
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith(
        "error: table spans, row 1, column group: group must be at most "
        "9,007,199,254,740,992, got 9223372036854775807\n"
    ), done.stderr
    assert runs(project) == []


def test_a_document_name_with_a_bidi_control_is_refused_before_the_run(project: Path) -> None:
    write_corpus(project / "corpus", {"gpj.\u202eexe.md": "Nothing here.\n"})
    done = run("eval", "c.toml")
    assert done.exit_code == 2, done.output
    assert done.stderr.startswith(
        f"error: {project / 'corpus'}: document 'gpj.\\u202eexe.md': its name holds a "
        "bidirectional control (\\u202e), which no run may hold; nothing was written"
    ), done.stderr
    assert "\u202e" not in done.output
    assert runs(project) == []


def test_a_control_character_in_rerank_model_is_refused_before_the_run(project: Path) -> None:
    rerank = '\n[candidate.rerank]\nurl = "http://127.0.0.1:9"\nmodel = "m\\u001b]0;PWN\\u0007"\n'
    (project / "c.toml").write_text(CANDIDATES + rerank, encoding="utf-8")
    done = run("eval", "c.toml")
    assert done.exit_code == 2, done.output
    assert "key rerank.model" in done.stderr and "a control character (\\x1b)" in done.stderr
    assert "\x1b" not in done.output
    assert runs(project) == []


def test_a_run_the_reader_would_refuse_is_not_written(project: Path) -> None:
    assert run("eval", "c.toml").exit_code == 0
    written = find_run(project / ".spanlab" / "runs", None)
    good = read_run(written.folder)
    bad = dataclasses.replace(good, id=good.id + "0", seconds=float("nan"))
    with pytest.raises(RunFileError) as refused:
        write_run(bad, project / ".spanlab" / "runs")
    assert refused.value.key == "seconds"
    assert refused.value.message.startswith("the run would not read back (is NaN, not a finite")
    assert runs(project) == [written.folder]  # no folder, not even one aside

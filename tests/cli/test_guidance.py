"""Messages that steer a user: format guessing, drafts left out, labels for another corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.formats import guess
from labeler.core.store import Store
from tests.conftest import table_dump, write_corpus


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_corpus(tmp_path / "corpus", {"a.md": "# Refunds\n\nRefunds take 14 days.\n"})
    monkeypatch.chdir(tmp_path)
    assert run("init", "corpus").exit_code == 0
    return tmp_path


def test_formats_are_guessed_from_suffix_and_content(tmp_path: Path) -> None:
    cases = {
        "q.txt": "How long do refunds take?\n",
        "q.csv": "question\nHow long?\n",
        "c.csv": "question,references,corpus_id\n",
        "s.json": '{"version": "v2.0", "data": []}',
        "l.json": "[]",
        "f.json": '{"format": "spanlab.labelset/1"}',
        "broken.json": "{",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = {name: guess(tmp_path / name) for name in cases}
    assert found == {
        "q.txt": "queries", "q.csv": "queries", "c.csv": "chroma-csv", "s.json": "squad",
        "l.json": "label-studio", "f.json": "spanlab", "broken.json": "spanlab",
    }  # fmt: skip


def test_a_questions_file_imports_without_naming_its_format(workdir: Path) -> None:
    (workdir / "misses.txt").write_text("How long do refunds take?\n", encoding="utf-8")
    result = run("labels", "import", "misses.txt")
    assert result.exit_code == 0, result.stderr
    assert "reading misses.txt as queries" in result.stderr
    assert "imported 1 of 1 queries" in result.stdout


def test_a_second_import_of_questions_says_what_it_read(workdir: Path) -> None:
    (workdir / "misses.txt").write_text(
        "# week 48\nHow long do refunds take?\nIs shipping free?\n", encoding="utf-8"
    )
    assert run("labels", "import", "misses.txt").exit_code == 0
    again = run("labels", "import", "misses.txt")
    assert again.exit_code == 0, again.stderr
    assert "misses.txt:1: skipped a # comment line" in again.stderr
    said = "read 3 line(s) of misses.txt: 0 new question(s), 2 duplicate(s), 1 comment(s)"
    assert said in again.stdout


def test_export_warns_about_drafts_without_evidence(workdir: Path) -> None:
    (workdir / "misses.txt").write_text("How long do refunds take?\n", encoding="utf-8")
    run("labels", "import", "misses.txt")
    result = run("labels", "export", "frozen.json")
    assert result.exit_code == 0
    assert "1 quer(y/ies) have no evidence and are not marked abstain (q-0001)" in result.stderr


def test_labels_for_a_corpus_with_no_document_in_common(workdir: Path) -> None:
    other = workdir / "other"
    write_corpus(other / "corpus", {"z.md": "Something else entirely.\n"})
    from labeler.core.corpus.folder import Corpus
    from labeler.core.labels.labelset import to_json, write_json

    write_json(to_json([], Corpus.read(other / "corpus")), workdir / "foreign.json")
    before = table_dump(Store.open(workdir / ".spanlab" / "labels.db"))
    result = run("labels", "import", "foreign.json")
    assert result.exit_code == 2
    assert "these labels are for another corpus: none of their 1 documents" in result.stderr
    assert "spanlab review" not in result.stderr
    assert table_dump(Store.open(workdir / ".spanlab" / "labels.db")) == before


def test_init_with_another_codec_warns_about_files_that_are_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_corpus(tmp_path / "corpus", {"utf8.md": "Café", "latin.txt": "Caf\xe9".encode("latin-1"),
                                       "ascii.md": "plain"})  # fmt: skip
    monkeypatch.chdir(tmp_path)
    result = run("init", "corpus", "--encoding", "latin-1")
    assert result.exit_code == 0
    assert "warning: utf8.md is valid UTF-8 with non-ASCII text, but is read as latin-1" in (
        result.stderr
    )
    assert "latin.txt" not in result.stderr and "ascii.md" not in result.stderr

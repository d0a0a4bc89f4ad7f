"""A store that may not be written (§13): reading commands work, writing ones say why.

The store is made read-only for real: a read-only bind mount when the tests run as root
(root writes through file modes), else file and folder modes without the write bits.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.values import Query, Span
from tests.conftest import write_corpus

TEXT = "Refunds take 30 days.\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project whose `.spanlab/` (the store, its WAL and index) cannot be written."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    write_corpus(work / "corpus", {"a.md": TEXT})
    assert run("init", "corpus").exit_code == 0
    span = Span.from_text(TEXT, "a.md", 13, 20)
    labelset.write_json(
        labelset.to_json(
            [Query("q-0001", "How long?", evidence=(span,))], Corpus.read(work / "corpus")
        ),
        work / "labels.json",
    )
    assert run("labels", "import", "labels.json").exit_code == 0
    store = work / ".spanlab"
    if os.geteuid() == 0:
        writable = tmp_path / "writable"
        shutil.move(store, writable)
        store.mkdir()
        subprocess.run(["mount", "--bind", str(writable), str(store)], check=True)
        subprocess.run(["mount", "-o", "remount,bind,ro", str(store)], check=True)
        try:
            yield work
        finally:
            # Lazily: the commands ran in this process and may still hold the file open.
            subprocess.run(["umount", "-l", str(store)], check=True)
        return
    for path in (store / "labels.db", store):
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield work
    finally:
        store.chmod(0o755)


def test_reading_commands_work_on_a_read_only_store(read_only: Path) -> None:
    status = run("corpus", "status", "--json")
    assert status.exit_code == 0, status.output
    assert json.loads(status.stdout)["documents"] == 1
    stats = run("labels", "stats", "--json")
    assert stats.exit_code == 0, stats.output
    assert json.loads(stats.stdout)["queries"] == 1


def test_a_write_to_a_read_only_store_is_a_clear_error(read_only: Path) -> None:
    (read_only / "q.txt").write_text("Another question?\n")
    done = run("labels", "import", "q.txt")
    assert done.exit_code == 2, done.output
    assert ".spanlab/labels.db" in done.stderr
    assert "Traceback" not in done.output
    # The real cause, not a guess: the mount (as root) or the folder's mode and its fix.
    why = "mounted read-only" if os.geteuid() == 0 else "mode 0555) is not writable by"
    assert why in done.stderr, done.stderr
    assert json.loads(run("labels", "stats", "--json").stdout)["queries"] == 1

"""Imports that write documents (§13): never outside the corpus, no trace when they fail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.anchoring.binding import sync
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import CorpusError
from labeler.core.labels import imports
from labeler.core.store import Store
from tests.conftest import table_dump, write_corpus


def run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": "alpha\n"})
    (tmp_path / "outside").mkdir()
    assert run("init", "corpus").exit_code == 0
    return tmp_path


def squad(path: Path, title: str, context: str = "Paris is big.") -> None:
    qa = {"id": "s1", "question": "Which city?", "answers": [{"text": "Paris", "answer_start": 0}]}
    article = {"title": title, "paragraphs": [{"context": context, "qas": [qa]}]}
    path.write_text(json.dumps({"version": "v2.0", "data": [article]}), encoding="utf-8")


def everything(workdir: Path) -> list[str]:
    """Every file and folder below the working folder but the store."""
    found = [p.relative_to(workdir).as_posix() for p in workdir.rglob("*")]
    return sorted(f for f in found if not f.startswith(".spanlab"))


def dump(workdir: Path) -> dict[str, list[tuple[object, ...]]]:
    store = Store.open(workdir / ".spanlab/labels.db", create=False)
    try:
        return table_dump(store)
    finally:
        store.close()


def test_a_title_through_a_linked_folder_writes_nothing_outside(workdir: Path) -> None:
    (workdir / "corpus" / "linkdir").symlink_to(workdir / "outside")
    squad(workdir / "s.json", "linkdir/x.txt")
    before, rows = everything(workdir), dump(workdir)
    done = run("labels", "import", "s.json", "--format", "squad")
    assert done.exit_code == 2, done.output
    assert "corpus/linkdir: an import would write through a symlink" in done.stderr
    assert list((workdir / "outside").iterdir()) == []
    assert everything(workdir) == before and dump(workdir) == rows


@pytest.mark.parametrize(
    ("title", "where"),
    [(".hidden.txt", "squad/hidden-txt/0.txt"), (".git/x.txt", "squad/git-x-txt/0.txt"),
     ("notes.json", "squad/notes-json/0.txt")],
)  # fmt: skip
def test_a_title_that_is_no_document_id_gets_a_slug(workdir: Path, title: str, where: str) -> None:
    squad(workdir / "s.json", title)
    done = run("labels", "import", "s.json", "--format", "squad")
    assert done.exit_code == 0, done.stderr
    assert (workdir / "corpus" / where).read_text("utf-8") == "Paris is big."
    assert [p for p in everything(workdir) if "/." in p or p.startswith(".")] == []
    assert where in Corpus.read(workdir / "corpus")


def test_a_lone_surrogate_in_a_context_leaves_no_document(workdir: Path) -> None:
    squad(workdir / "s.json", "Geo", "Paris \ud800 is big.")
    before, rows = everything(workdir), dump(workdir)
    done = run("labels", "import", "s.json", "--format", "squad")
    assert done.exit_code == 2, done.output
    assert "Traceback" not in done.output
    assert everything(workdir) == before and dump(workdir) == rows
    assert run("corpus", "status").exit_code == 0


def test_a_failed_transaction_takes_the_documents_back(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    squad(workdir / "s.json", "Geo")
    before = everything(workdir)
    store = Store.open(workdir / ".spanlab/labels.db", create=False)
    rows = table_dump(store)
    docs = Corpus.read(workdir / "corpus")
    seen: list[bool] = []

    def fail(*args: Any, **kwargs: Any) -> None:
        seen.append((workdir / "corpus/squad/geo/0.txt").exists())
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "put_queries", fail)
    with pytest.raises(OSError):
        opts = imports.ImportOptions("squad", "a")
        imports.import_file(store, docs, sync(store, docs), workdir / "s.json", opts)
    assert seen == [True]  # the document was in place inside the transaction
    assert everything(workdir) == before and table_dump(store) == rows


def test_a_document_already_there_with_other_text_is_refused(workdir: Path) -> None:
    squad(workdir / "s.json", "b.txt")
    (workdir / "corpus" / "b.txt").symlink_to(workdir / "outside" / "nothing")
    done = run("labels", "import", "s.json", "--format", "squad")
    assert done.exit_code == 2
    assert "symlink" in done.stderr
    assert list((workdir / "outside").iterdir()) == []


FULL_DISK = textwrap.dedent(
    """
    import resource, signal, sys
    from labeler.cli import main
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
    sys.argv = ["spanlab", *sys.argv[2:]]
    main()
    """
)


def test_a_full_disk_during_import_is_a_clear_error_and_leaves_nothing(workdir: Path) -> None:
    limit = 1 << 20
    assert (workdir / ".spanlab/labels.db").stat().st_size < limit
    squad(workdir / "s.json", "Geo", "Paris is big. " + "x" * (2 * limit))
    before = everything(workdir)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(limit), "labels", "import", "s.json", "-f", "squad"],
        capture_output=True, text=True, env=env, cwd=workdir, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "corpus/squad/geo/0.txt: cannot write: File too large" in done.stderr
    assert "the disk is full" in done.stderr and "Traceback" not in done.stderr
    assert everything(workdir) == before


def test_check_new_refuses_names_a_read_would_not_find(tmp_path: Path) -> None:
    from labeler.core.corpus.add import check_new

    root = write_corpus(tmp_path / "c", {"a.md": "a"})
    for name in (".x.txt", "a/.b.txt", "x.json", "a\tb.txt", "../x.txt"):
        with pytest.raises(CorpusError):
            check_new(root, Corpus.read(root), {name: "text"}, "utf-8")
    with pytest.raises(CorpusError, match="cannot be written in ascii"):
        check_new(root, Corpus.read(root), {"n.txt": "café"}, "ascii")


@pytest.mark.parametrize("fmt", ["label-studio", "squad"])
def test_a_full_disk_during_export_is_a_clear_error_and_leaves_no_tmp(
    workdir: Path, fmt: str
) -> None:
    limit = 256 * 1024
    (workdir / "corpus" / "big.md").write_text("Paris is big. " + "x" * (2 * limit), "utf-8")
    squad(workdir / "s.json", "big.md", (workdir / "corpus" / "big.md").read_text("utf-8"))
    assert run("corpus", "status").exit_code == 0
    assert run("labels", "import", "s.json", "-f", "squad").exit_code == 0
    before = everything(workdir)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(limit), "labels", "export", "out.json", "-f", fmt],
        capture_output=True, text=True, env=env, cwd=workdir, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "out.json: cannot write: File too large" in done.stderr
    assert "Traceback" not in done.stderr
    assert everything(workdir) == before  # no out.json, no out.json.tmp

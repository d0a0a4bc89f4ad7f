"""Every file a command reads is a regular file sized before it is read (§13): a FIFO, a
device or a directory in its place is refused by name at once (never a read that blocks or
never ends), a file over its bound is refused by its stat, and a line over the line bound
is refused without being held. Exit 2, the file named, no traceback, nothing changed."""

from __future__ import annotations

import os
import pwd
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from labeler.cli import app
from labeler.core.typed import MAX_LINE, MAX_QUERIES_FILE
from tests.conftest import write_corpus

TEXT = "Refunds take 30 days.\n"


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _device(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _folder(path: Path) -> None:
    path.mkdir()


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (_fifo, "is a FIFO (named pipe), not a regular file"),
    "dev-zero": (_device, "is a character device, not a regular file"),
    "directory": (_folder, "is a directory, not a regular file"),
}
COMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "labels import .jsonl": ("in.jsonl", ("labels", "import", "in.jsonl")),
    "labels import .json": ("in.json", ("labels", "import", "in.json")),
    "labels import -f doccano": ("in.jsonl", ("labels", "import", "in.jsonl", "-f", "doccano")),
    "labels import .csv": ("in.csv", ("labels", "import", "in.csv")),
    "labels import .txt": ("in.txt", ("labels", "import", "in.txt")),
    "labels import .tsv": ("in.tsv", ("labels", "import", "in.tsv")),
    "gate CANDIDATES": ("c.toml", ("gate", "c.toml", "--labels", "labels.json")),
    "spanlab.toml": ("spanlab.toml", ("corpus", "status")),
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_corpus(tmp_path / "corpus", {"a.md": TEXT})
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    (tmp_path / "queries.jsonl").write_text('{"_id": "1", "text": "How long?"}\n', "utf-8")
    return tmp_path  # the queries beside any qrels file


def _run(argv: list[str], unblock: Path | None = None) -> Result:
    """The command's result; a FIFO that blocked it is opened for writing to set it free,
    and the test fails (a read that blocks is the very bug)."""
    done: list[Result] = []
    worker = threading.Thread(target=lambda: done.append(CliRunner().invoke(app, argv)))
    worker.start()
    worker.join(60)
    if worker.is_alive() and unblock is not None:
        os.close(os.open(unblock, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(10)
    assert done, f"{argv} blocked"
    return done[0]


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_file_that_is_not_a_regular_file_is_refused_by_name(
    project: Path, command: str, kind: str
) -> None:
    name, argv = COMMANDS[command]
    make, words = KINDS[kind]
    if name == "spanlab.toml":
        (project / name).unlink()
    make(project / name)
    done = _run(list(argv), project / name if kind == "fifo" else None)
    assert done.exit_code == 2, (done.output, done.exception)
    assert "Traceback" not in done.output
    assert name in done.stderr and words in done.stderr, done.stderr


def test_a_200_mb_one_line_queries_file_is_refused_by_its_stat(project: Path) -> None:
    with (project / "q.txt").open("wb") as out:  # sparse: nothing to read, only the stat
        out.truncate(200_000_000)
    done = _run(["labels", "import", "q.txt"])
    assert done.exit_code == 2
    limit = f"{MAX_QUERIES_FILE:,}"
    assert f"q.txt: is 200,000,000 bytes, over the limit of {limit} bytes" in done.stderr


@pytest.mark.parametrize("name", ["q.txt", "in.jsonl", "in.tsv"])
def test_a_line_over_the_bound_is_refused_naming_its_line(project: Path, name: str) -> None:
    with (project / name).open("wb") as out:
        out.write(b"How long do refunds take?\n" if name == "q.txt" else b"\n")
        out.write(b"a" * (MAX_LINE + 1))
    done = _run(["labels", "import", name])
    assert done.exit_code == 2
    assert f"{name}:2: the line is longer than {MAX_LINE:,} bytes" in done.stderr


def test_a_queries_file_that_is_not_utf8_names_the_line_and_the_byte(project: Path) -> None:
    (project / "q.txt").write_bytes(b"fine\r\nalso fine\rbad \xff here\n")
    done = _run(["labels", "import", "q.txt"])
    assert done.exit_code == 2  # the line counted by `\n`; the byte is exact
    assert "q.txt:2, offset 20: not valid UTF-8: invalid start byte (byte 20" in done.stderr


CHUNKS = """[settings]
baseline = "ours"
[[candidate]]
name = "ours"
splitter = "chunks"
options = { path = "chunks.jsonl" }
"""


@pytest.mark.parametrize("kind", list(KINDS))
def test_gate_with_a_chunk_file_that_is_not_a_regular_file_names_it(
    project: Path, kind: str
) -> None:
    (project / "c.toml").write_text(CHUNKS, "utf-8")
    make, words = KINDS[kind]
    make(project / "chunks.jsonl")
    done = _run(["gate", "c.toml", "--labels", "labels.json"], project / "chunks.jsonl")
    assert done.exit_code == 2, done.output
    assert f"chunks.jsonl, key options.path: candidate 'ours': the chunk file {words}" in (
        done.stderr
    ), done.stderr


@pytest.mark.parametrize("kind", list(KINDS))
def test_show_a_run_whose_run_json_is_not_a_regular_file_names_it(project: Path, kind: str) -> None:
    folder = project / "a-run"
    folder.mkdir()
    make, words = KINDS[kind]
    make(folder / "run.json")
    done = _run(["show", str(folder), "q-0001"], folder / "run.json")
    assert done.exit_code == 2, done.output
    if kind == "dev-zero":  # a run folder's own file: the link is refused, never followed
        me = pwd.getpwuid(os.getuid()).pw_name
        words = f"a symbolic link owned by {me} (to /dev/zero) is here, where spanlab keeps"
        assert f"run.json: {words} a regular file of its own: refused" in done.stderr
    else:
        assert f"run.json: the run file {words}" in done.stderr, done.stderr

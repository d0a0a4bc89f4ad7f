"""§20: an output path that exists and is not a regular file — a FIFO, a character device
(made here like /dev/full), a folder, a symbolic link — is refused and left as it is by
every writer: `labels export`, `trec`, `diff --markdown`, the CI job summary. As root (a
CI container), where replacing `/dev/full` with a regular file was possible."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labeler.cli import app
from tests.cli.test_ci import ci_folder as ci_folder  # the fixture
from tests.cli.test_ci import gate

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")

WRITES = (
    "is here, where spanlab writes a regular file (never a FIFO, device, folder or link): "
    "refused, left as it is"
)
"""How the refusal of an output path ends."""


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def nodes(folder: Path) -> dict[str, Path]:
    """kind (as a refusal names it) -> a node of that kind in the test's own folder."""
    made = folder / "nodes"
    made.mkdir()
    os.mkfifo(made / "fifo")
    os.mknod(made / "full", 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # /dev/full's numbers
    (made / "folder").mkdir()
    (made / "target.txt").write_text("kept\n", encoding="utf-8")
    os.symlink(made / "target.txt", made / "link")
    return {"FIFO": made / "fifo", "character device": made / "full",
            "folder": made / "folder", "symbolic link": made / "link"}  # fmt: skip


def looks(path: Path) -> tuple[int, int, int]:
    st = os.lstat(path)
    return st.st_mode, st.st_ino, st.st_rdev


def owned(kind: str, path: Path) -> str:
    to = f" (to {os.readlink(path)})" if kind == "symbolic link" else ""
    return f"a {kind} owned by root{to}"


def test_no_writer_replaces_or_writes_through_a_fifo_a_device_a_folder_or_a_link(
    ci_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate()  # a run to write from (c30 fails its gate: exit 1, the run is kept)
    assert run("init", "corpus")[0] == 0
    assert run("labels", "import", "frozen.json")[0] == 0
    found = nodes(ci_folder)
    before = {kind: looks(path) for kind, path in found.items()}
    refused = 0
    for kind, path in found.items():
        writers = [("labels", "export", str(path)), ("diff", "latest", "latest", "--markdown",
                                                     str(path))]  # fmt: skip
        if kind != "folder":  # trec writes a folder of files
            writers.append(("trec", "latest", str(path)))
        for args in writers:
            code, err = run(*args)
            wanted = "writes a folder of files" if args[0] == "trec" else None
            ends = f"is here, where spanlab {wanted}: refused, left as it is" if wanted else WRITES
            assert (code, err.splitlines()[0]) == (2, f"error: {path}: {owned(kind, path)} {ends}")
            refused += 1
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
        code, _out, err = gate()
        assert code == 2 and f"error: {path}: {owned(kind, path)} {WRITES}" in err, err
        monkeypatch.delenv("GITHUB_STEP_SUMMARY")
        refused += 1
    assert refused == 15
    assert {kind: looks(path) for kind, path in found.items()} == before
    assert (ci_folder / "nodes" / "target.txt").read_text(encoding="utf-8") == "kept\n"
    assert list((ci_folder / "nodes" / "folder").iterdir()) == []

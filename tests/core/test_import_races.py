"""Eight `spanlab labels import` processes at once (§3, §13): ids are allocated inside
each write, so no writer's acknowledged queries are overwritten or lost, with `--replace`
or without, and a deleted id is never handed out again."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from labeler.core.store import Store
from tests.conftest import write_corpus

ROOT = Path(__file__).resolve().parents[2]
WRITERS = 8
PER_FILE = 50
RUN = "from labeler.cli import main; main()"


def project(tmp_path: Path) -> Path:
    write_corpus(tmp_path / "corpus", {"policy.md": "Refunds are paid within 30 days.\n"})
    init = spanlab(tmp_path, "init", "corpus")
    assert init.returncode == 0, init.stderr
    for w in range(WRITERS):
        lines = [f"writer {w} question {i}?" for i in range(PER_FILE)]
        (tmp_path / f"misses-{w}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def spanlab(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", RUN, *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def race(cwd: Path, *flags: str) -> list[subprocess.Popen[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    pipe = subprocess.PIPE
    procs = []
    for w in range(WRITERS):
        args = ["labels", "import", f"misses-{w}.txt", "--format", "queries", *flags]
        cmd = [sys.executable, "-c", RUN, *args]
        procs.append(subprocess.Popen(cmd, cwd=cwd, env=env, stdout=pipe, stderr=pipe, text=True))
    for p in procs:
        p.wait(timeout=300)
    return procs


def acknowledged(procs: list[subprocess.Popen[str]]) -> int:
    total = 0
    for p in procs:
        out, err = p.communicate()
        assert p.returncode == 0, err
        found = re.search(r"imported (\d+) of (\d+) queries", out)
        assert found is not None, out
        total += int(found.group(1))
    return total


@pytest.mark.parametrize("flags", [("--replace",), ()], ids=["replace", "plain"])
def test_eight_imports_at_once_keep_every_acknowledged_query(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    cwd = project(tmp_path)
    acks = acknowledged(race(cwd, *flags))
    assert acks == WRITERS * PER_FILE
    store = Store.open(cwd / ".spanlab" / "labels.db", create=False)
    queries = store.queries()
    assert sorted(q.text for q in queries) == sorted(
        f"writer {w} question {i}?" for w in range(WRITERS) for i in range(PER_FILE)
    )
    assert [q.id for q in queries] == [f"q-{n:04d}" for n in range(1, acks + 1)]
    store.close()


def test_a_deleted_id_is_never_handed_to_an_imported_query(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    assert spanlab(cwd, "labels", "import", "misses-0.txt", "--format", "queries").returncode == 0
    store = Store.open(cwd / ".spanlab" / "labels.db", create=False)
    store.delete_query(f"q-{PER_FILE:04d}", annotator="ann")
    store.close()
    done = spanlab(cwd, "labels", "import", "misses-1.txt", "--format", "queries", "--replace")
    assert done.returncode == 0, done.stderr
    store = Store.open(cwd / ".spanlab" / "labels.db", create=False)
    ids = [q.id for q in store.queries()]
    assert f"q-{PER_FILE:04d}" not in ids
    assert ids[-1] == f"q-{2 * PER_FILE:04d}" and len(ids) == 2 * PER_FILE - 1
    assert store.retired(f"q-{PER_FILE:04d}")
    store.close()

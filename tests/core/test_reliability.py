"""design §13: eight writers at once lose nothing; a writer killed mid-transaction loses
only what it never acknowledged, and leaves a database that passes integrity_check."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

from labeler.core.store import Store
from tests.core.reliability_workers import QUOTE, TEXT, concurrent_writer

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 8
PER_WORKER = 50


def test_eight_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "labels.db")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(WORKERS)
    results: multiprocessing.Queue[tuple[int, list[str]]] = ctx.Queue()
    # Nobody creates the store first: the eight race to create and migrate it too.
    procs = [
        ctx.Process(target=concurrent_writer, args=(path, w, PER_WORKER, barrier, results))
        for w in range(WORKERS)
    ]
    for p in procs:
        p.start()
    reports = dict(results.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(timeout=30)
    assert reports == {w: [] for w in range(WORKERS)}
    assert [p.exitcode for p in procs] == [0] * WORKERS
    store = Store.open(path, create=False)
    queries = store.queries()
    assert len(queries) == WORKERS * PER_WORKER
    assert sorted(q.text for q in queries) == sorted(
        f"worker {w} query {i}" for w in range(WORKERS) for i in range(PER_WORKER)
    )
    assert [q.id for q in queries] == [f"q-{n:04d}" for n in range(1, 401)]
    assert all(len(q.evidence) == 1 for q in queries)
    assert {(s.start, s.end, s.quote) for q in queries for s in q.evidence} == {
        (*QUOTE, TEXT[QUOTE[0] : QUOTE[1]])
    }
    assert store.count("events") == 2 * WORKERS * PER_WORKER
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store.close()


def start_writer(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.core.reliability_workers", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )


def read_acks(proc: subprocess.Popen[str], *, until: str | None, count: int) -> list[str]:
    """Acknowledged query ids, read until the `until` line or `count` acks."""
    assert proc.stdout is not None
    acks: list[str] = []
    for line in proc.stdout:
        if line.strip() == until:
            break
        acks.append(line.split()[1])
        if until is None and len(acks) == count:
            break
    return acks


def kill(proc: subprocess.Popen[str]) -> list[str]:
    """SIGKILL the writer; returns the acks it printed that were not read yet."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert proc.stdout is not None
    unread = [
        line.split()[1] for line in proc.stdout.read().splitlines() if line.startswith("ack ")
    ]
    proc.stdout.close()
    return unread


def survivors(path: Path) -> tuple[str, list[str], int]:
    store = Store.open(path, create=False)
    integrity = store.conn.execute("PRAGMA integrity_check").fetchone()[0]
    ids = [q.id for q in store.queries() if len(q.evidence) == 1]
    uncommitted = store.conn.execute(
        "SELECT count(*) FROM queries WHERE id LIKE 'uncommitted-%'"
    ).fetchone()[0]
    store.close()
    return str(integrity), ids, int(uncommitted)


def test_writer_killed_inside_a_transaction(tmp_path: Path) -> None:
    path = tmp_path / "labels.db"
    proc = start_writer("crash", str(path), "20")
    acks = read_acks(proc, until="in-transaction", count=20)
    kill(proc)
    assert acks == [f"q-{n:04d}" for n in range(1, 21)]
    integrity, ids, uncommitted = survivors(path)
    assert integrity == "ok"
    assert ids == acks
    assert uncommitted == 0


def test_writer_killed_while_writing_as_fast_as_it_can(tmp_path: Path) -> None:
    path = tmp_path / "labels.db"
    proc = start_writer("endless", str(path))
    acks = read_acks(proc, until=None, count=60)
    # Acks the writer printed before it died but we had not read yet count as well: on a
    # busy machine it runs ahead of the reader by more than one line.
    acks += kill(proc)
    integrity, ids, _ = survivors(path)
    assert integrity == "ok"
    assert len(acks) >= 60
    # Everything acknowledged is there; at most the write in flight may be too.
    assert ids[: len(acks)] == acks
    assert len(ids) - len(acks) <= 1

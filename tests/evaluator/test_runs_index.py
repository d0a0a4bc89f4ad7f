"""The runs index: recorded runs and run folders it never saw both list, newest first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from evaluator.candidates import Settings
from evaluator.chunking.spec import SPLITTER_VERSION, SplitterSpec
from evaluator.runs.index import RunEntry, find_run, index_path, list_runs, record
from evaluator.runs.model import RunFile, write_run_file
from evaluator.runs.model_parts import CandidateRecord, CandidatesFileRef, Manifest
from labeler.core.errors import StoreError


def candidate(name: str, *, baseline: bool) -> CandidateRecord:
    spec = SplitterSpec("chars", 10)
    return CandidateRecord(name, baseline, SPLITTER_VERSION, spec, spec.fingerprint(),
                           {}, {}, {}, {}, {})  # fmt: skip


def run_data(run_id: str, started: str, *, passed: bool = True) -> RunFile:
    """A run with what the index reads, and nothing measured: two candidates, no queries."""
    manifest = Manifest({}, "sha256:c0", "sha256:l0", CandidatesFileRef("c.toml", "sha256:f0"),
                        Settings("w10"), 0, {}, False, ())  # fmt: skip
    return RunFile(run_id, started, 0.0, passed, manifest,
                   (candidate("w10", baseline=True), candidate("c30", baseline=False)),
                   {}, (), {})  # fmt: skip


def write(runs: Path, data: RunFile) -> Path:
    folder = runs / data.id
    folder.mkdir(parents=True)
    write_run_file(data, folder / "run.json")
    return folder


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    return tmp_path / ".spanlab" / "runs"


def test_record_then_list_gives_the_entry_back(runs: Path) -> None:
    data = run_data("20250102-030405-000001", "2025-01-02T03:04:05Z", passed=False)
    folder = write(runs, data)
    entry = record(runs, data, folder)
    assert entry == RunEntry(
        id="20250102-030405-000001",
        started="2025-01-02T03:04:05Z",
        passed=False,
        baseline="w10",
        candidates=("w10", "c30"),
        corpus_hash="sha256:c0",
        label_set_hash="sha256:l0",
        folder=folder,
    )
    assert list_runs(runs) == [entry]
    assert index_path(runs) == runs.parent / "runs.db"


def test_folders_never_recorded_are_indexed_when_listed(runs: Path) -> None:
    old = write(runs, run_data("20240101-000000-000000", "2024-01-01T00:00:00Z"))
    new = write(runs, run_data("20250101-000000-000000", "2025-01-01T00:00:00Z"))
    assert not index_path(runs).exists()
    assert [e.folder for e in list_runs(runs)] == [new, old]
    with sqlite3.connect(index_path(runs)) as conn:
        stored = conn.execute("SELECT id, folder FROM runs ORDER BY id").fetchall()
    assert stored == [
        ("20240101-000000-000000", "20240101-000000-000000"),
        ("20250101-000000-000000", "20250101-000000-000000"),
    ]


def test_a_deleted_folder_drops_out_and_a_half_written_one_is_skipped(runs: Path) -> None:
    gone = write(runs, run_data("20240101-000000-000000", "2024-01-01T00:00:00Z"))
    kept = write(runs, run_data("20240102-000000-000000", "2024-01-02T00:00:00Z"))
    assert len(list_runs(runs)) == 2
    (gone / "run.json").unlink()
    (runs / "20240103-000000-000000").mkdir()
    (runs / "20240103-000000-000000" / "run.json").write_text('{"id": ', "utf-8")
    assert [e.folder for e in list_runs(runs)] == [kept]
    with sqlite3.connect(index_path(runs)) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (1,)


def test_no_runs_folder_lists_nothing_and_creates_nothing(runs: Path) -> None:
    assert list_runs(runs) == []
    assert not runs.parent.exists()


def test_find_run_takes_latest_an_id_or_a_unique_prefix(runs: Path) -> None:
    write(runs, run_data("20240101-000000-000000", "2024-01-01T00:00:00Z"))
    write(runs, run_data("20250101-000000-000000", "2025-01-01T00:00:00Z"))
    assert find_run(runs, None).id == "20250101-000000-000000"
    assert find_run(runs, "latest").id == "20250101-000000-000000"
    assert find_run(runs, "2024").id == "20240101-000000-000000"
    with pytest.raises(StoreError, match="2 runs match '20'"):
        find_run(runs, "20")
    with pytest.raises(StoreError, match="no run 'x'"):
        find_run(runs, "x")


def test_find_run_without_runs_says_to_run_eval(runs: Path) -> None:
    with pytest.raises(StoreError) as info:
        find_run(runs, None)
    assert info.value.hint == "run `spanlab eval`"


def test_runs_still_list_where_the_index_cannot_be_opened(runs: Path) -> None:
    folder = write(runs, run_data("20240101-000000-000000", "2024-01-01T00:00:00Z"))
    index_path(runs).mkdir()  # a folder where the database should be: sqlite cannot open it
    assert [e.folder for e in list_runs(runs)] == [folder]


def test_a_newer_index_is_refused(runs: Path) -> None:
    write(runs, run_data("20240101-000000-000000", "2024-01-01T00:00:00Z"))
    index_path(runs).parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(index_path(runs)) as conn:
        conn.execute("PRAGMA user_version = 9")
    with pytest.raises(StoreError, match="version 9"):
        list_runs(runs)

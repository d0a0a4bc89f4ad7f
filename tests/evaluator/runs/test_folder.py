"""A run folder appears only complete (§9, §13): written aside, renamed into place.

The full disk is real: a child process runs the writer under a file-size limit
(RLIMIT_FSIZE), so the write fails where the operating system stops it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from evaluator.pipeline.record import run_file
from evaluator.runs.folder import write_run
from evaluator.runs.index import list_runs
from evaluator.runs.model import FILE_NAME, read_run
from tests.evaluator.runs.conftest import SmallRun

ROOT = Path(__file__).resolve().parents[3]
FILES = {FILE_NAME, "report.md", "junit.xml", "frontier.svg", "chunks.tsv"}

CHILD = """
import resource, signal, sys
from pathlib import Path
from evaluator.runs.folder import write_run
from evaluator.runs.model import read_run
from labeler.core.errors import SpanlabError
run = read_run(Path(sys.argv[1]))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[3]), int(sys.argv[3])))
try:
    write_run(run, Path(sys.argv[2]))
except SpanlabError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
"""


def test_a_written_run_folder_is_whole_and_nothing_is_left_aside(
    tmp_path: Path, small_run: SmallRun
) -> None:
    runs = tmp_path / "runs"
    folder = write_run(run_file(small_run.result, include_text=False), runs)
    assert {p.name for p in folder.iterdir()} == FILES
    assert [p.name for p in runs.iterdir()] == [folder.name]
    assert [e.id for e in list_runs(runs)] == [folder.name]


def test_a_full_disk_leaves_no_run_folder_and_says_so(tmp_path: Path, small_run: SmallRun) -> None:
    source = tmp_path / "source"
    folder = write_run(run_file(small_run.result, include_text=False), source)
    runs = tmp_path / "runs"
    runs.mkdir()
    size = (folder / FILE_NAME).stat().st_size
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), str(runs), str(size // 2)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "cannot write" in done.stderr and folder.name in done.stderr
    assert "Traceback" not in done.stderr
    assert list(runs.iterdir()) == []
    assert list_runs(runs) == []


def test_listing_passes_by_a_run_still_being_written(tmp_path: Path, small_run: SmallRun) -> None:
    runs = tmp_path / "runs"
    folder = write_run(run_file(small_run.result, include_text=False), tmp_path / "done")
    shutil.copytree(folder, runs / f".{folder.name}.x1y2")
    assert list_runs(runs) == []
    assert json.loads((runs / f".{folder.name}.x1y2" / FILE_NAME).read_text())["id"]
    assert read_run(folder).id == folder.name

"""The command line freezes what the process holds before a command and as it ends (§17: the
collector and the interpreter's exit stop walking it), and atexit handlers still run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import atexit, gc, sys
import labeler.cli as cli
made, seen, real = [], {}, cli.app
def command():
    try:
        real()
    finally:  # what the command itself made, after the freeze before it
        made.extend([] for _ in range(1000))
        seen["before"] = gc.get_freeze_count()
cli.app = command
atexit.register(lambda: print("atexit ran, made by the command frozen:",
                              gc.get_freeze_count() >= seen["before"] + 1000))
sys.argv = ["spanlab", "--help"]
cli.main()
"""


def test_the_process_ends_frozen_and_its_atexit_handlers_run(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True, text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "atexit ran, made by the command frozen: True"
    assert "Usage: spanlab" in done.stdout

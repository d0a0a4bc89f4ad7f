"""The command line freezes what the process holds before a command and as it ends (§17: the
collector and the interpreter's exit stop walking it), and atexit handlers still run."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_startup import run_probe

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
    done = run_probe(PROBE, tmp_path)
    assert done.stdout.splitlines()[-1] == "atexit ran, made by the command frozen: True"
    assert "Usage: spanlab" in done.stdout

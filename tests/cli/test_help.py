"""Every command, group and sub-command has `--help` with an example (STYLE: thin commands).

The command tree is walked from the registered typer app, so commands added later by any
module are checked without editing this test.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer.main
from typer.testing import CliRunner

from labeler.cli import app


def command_paths(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from command_paths(sub, (*path, name))


PATHS = list(command_paths(typer.main.get_command(app)))


def test_the_walk_finds_the_foundation_commands() -> None:
    assert {
        (),
        ("init",),
        ("corpus",),
        ("corpus", "status"),
        ("labels",),
        ("labels", "import"),
        ("labels", "export"),
        ("labels", "stats"),
    } <= set(PATHS)


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    missing = []
    for path in PATHS:
        done = runner.invoke(app, [*path, "--help"])
        assert done.exit_code == 0, (path, done.output)
        if "Example:" not in done.stdout:
            missing.append(" ".join(("spanlab", *path)))
    assert missing == []

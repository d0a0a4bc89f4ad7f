"""Tables printed to a pipe (a CI log) are not cut at 80 columns (§9): the lost counts,
the last columns of the eval table, were dropped."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.table import Table

from labeler.cli.evaluate import _table_console


def test_a_wide_table_is_whole_when_stdout_is_not_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # what rich takes on a pipe with no terminal size
    table = Table()
    for n in range(12):
        table.add_column(f"column-{n}", no_wrap=True)
    table.add_row(*(f"value-{n:03d}" for n in range(12)))
    _table_console().print(table)
    out = capsys.readouterr().out
    assert "column-11" in out and "value-011" in out
    assert max(len(line) for line in out.splitlines()) > 80
    Console().print(table)  # rich's default, as before: cut
    assert "value-011" not in capsys.readouterr().out

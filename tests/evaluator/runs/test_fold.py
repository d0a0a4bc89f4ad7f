"""A table wider than the terminal is folded by columns, never cut: at 80 columns seven
candidates side by side come out as two tables, each row name in both, every cell whole."""

from __future__ import annotations

import io

from rich import box
from rich.console import Console
from rich.table import Table

from evaluator.fold import folded

NAMES = ["tok128-ov32", "tok128-ov0", "tok256-ov64", "markdown-200", "tok128-window1",
         "tok128-parent512", "tok128-ov32-mmr"]  # fmt: skip
"""The demo's seven candidates: rich cut them to `tok12…` and `tok1…` at 80 columns."""


def breakdown(names: list[str]) -> Table:
    table = Table(title="Recall@k by slice", title_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False, padding=(0, 0, 0, 1), caption="a legend")  # fmt: skip
    table.add_column("slice", no_wrap=True)
    table.add_column("answerable", justify="right")
    for name in names:
        table.add_column(name, justify="right", no_wrap=True)
    for i, key in enumerate(["account", "multi-doc"]):
        table.add_row(key, str(8 + i), *(f"0.{i}{j}5" for j in range(len(names))))
    return table


def drawn(tables: list[Table], width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(*tables)
    out = console.file
    assert isinstance(out, io.StringIO)
    return out.getvalue().splitlines()


def test_seven_candidates_at_80_columns_fold_into_two_tables_with_no_cell_cut() -> None:
    console = Console(width=80)
    parts = folded(breakdown(NAMES), console, keep=2)
    assert len(parts) == 2
    assert [[str(c.header) for c in p.columns] for p in parts] == [
        ["slice", "answerable", *NAMES[:4]],
        ["slice", "answerable", *NAMES[4:]],
    ]
    lines = drawn(parts, 80)
    assert max(len(line) for line in lines) <= 80
    assert "…" not in "\n".join(lines)
    assert [line.strip() for line in lines if "(continued)" in line] == [
        "Recall@k by slice (continued)"
    ]
    rows = [line.split() for line in lines if line.startswith(" multi-doc")]
    assert rows == [
        ["multi-doc", "9", "0.105", "0.115", "0.125", "0.135"],
        ["multi-doc", "9", "0.145", "0.155", "0.165"],
    ]
    assert [p.caption for p in parts] == [None, "a legend"]


def test_a_table_that_fits_is_printed_as_it_is() -> None:
    table = breakdown(NAMES[:2])
    assert folded(table, Console(width=80), keep=2) == [table]
    wide = breakdown(NAMES)
    assert folded(wide, Console(width=1000), keep=2) == [wide]  # piped: a CI log's width


def test_a_column_wider_than_the_terminal_alone_gets_a_table_of_its_own() -> None:
    wide = ["x" * 70, "y" * 70]
    parts = folded(breakdown(wide), Console(width=80), keep=1)
    assert [[str(c.header) for c in p.columns] for p in parts] == [
        ["slice", "answerable"], ["slice", "x" * 70], ["slice", "y" * 70],
    ]  # fmt: skip

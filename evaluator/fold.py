"""A terminal table too wide for the terminal, folded by columns rather than cut (§9: the
terminal summary stays readable at 80 columns).

Rich fits a wide table by cutting cells to `…`: seven candidates side by side at 80
columns left `tok12…` beside `tok1…` and a lost count of `…`. Folded, the table becomes
several, each as wide as the terminal allows, the row names repeated in each, no cell cut.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, RenderableType
from rich.table import Column, Table


def folded(table: Table, console: Console, *, keep: int = 1) -> list[Table]:
    """`table` itself when it fits `console`; else tables of its first `keep` columns (the
    row names) and as many of the rest, in order, as fit, titled `(continued)` after the
    first and as wide as it, the caption under the last."""
    if _width(table, console) <= console.width or len(table.columns) <= keep + 1:
        return [table]
    head, rest = table.columns[:keep], table.columns[keep:]
    groups: list[list[Column]] = [[]]
    for column in rest:
        trial = _rebuilt(table, [*head, *groups[-1], column], first=not groups[1:])
        if groups[-1] and _width(trial, console) > console.width:
            groups.append([])
        groups[-1].append(column)
    parts = [_rebuilt(table, [*head, *g], first=i == 0) for i, g in enumerate(groups)]
    for part in parts[1:]:  # as wide as the first: the title and caption wrap alike
        part.min_width = min(console.width, _width(parts[0], console))
    parts[-1].caption = table.caption
    return parts


def _width(table: Table, console: Console) -> int:
    return console.measure(table, options=console.options.update_width(1 << 16)).maximum


def _rebuilt(table: Table, columns: Sequence[Column], *, first: bool) -> Table:
    """A table as `table` is drawn, with only `columns`; its title, or `(continued)`."""
    title = table.title if first else f"{table.title} (continued)" if table.title else None
    part = Table(title=title, title_justify=table.title_justify, box=table.box,
                 pad_edge=table.pad_edge, padding=table.padding, show_header=table.show_header,
                 caption_justify=table.caption_justify)  # fmt: skip
    for column in columns:
        part.add_column(column.header, justify=column.justify, no_wrap=column.no_wrap,
                        overflow=column.overflow, style=column.style)  # fmt: skip
    cells: list[list[RenderableType]] = [list(c.cells) for c in columns]
    for row in zip(*cells, strict=True):
        part.add_row(*row)
    return part

"""Progress bars on a terminal, silence in CI (`CI` set) or without a TTY (§10).

Every long command shows its position and the time left through `task`, the one way to
draw a bar. Tasks nest: one opened while another is shown (eval's overall bar, then each
embedding under it) joins the same display, since rich allows one live display at a time.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

Advance = Callable[[int], None]
_shown: list[Progress] = []
"""The display open now (at most one), which nested tasks join."""


def wanted() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI")


class Rate(ProgressColumn):
    """`2.4 answers/s` for a task given a `unit`; nothing for the others."""

    def render(self, task: Task) -> Text:
        unit, speed = task.fields.get("unit"), task.speed
        return Text("" if not unit or speed is None else f"{speed:.1f} {unit}/s")


def columns() -> tuple[ProgressColumn, ...]:
    """What a bar says: what it does, how far (n of total), its rate when it has a unit,
    time taken and time left."""
    return (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )


@contextmanager
def task(
    description: str, total: int, *, enabled: bool | None = None, unit: str = ""
) -> Iterator[Advance]:
    """Yield a function that advances the bar by n; a no-op when progress is off. With
    `unit` (`answers`), the bar shows its rate (`2.4 answers/s`)."""
    if not (wanted() if enabled is None else enabled) or total <= 0:
        yield lambda n: None
        return
    if _shown:  # inside another task: a line of the same display, gone when done
        bar = _shown[0]
        tid = bar.add_task(description, total=total, unit=unit)
        try:
            yield lambda n: bar.advance(tid, n)
        finally:
            bar.remove_task(tid)
        return
    with Progress(*columns(), transient=True, console=Console(stderr=True)) as bar:
        _shown.append(bar)
        try:
            tid = bar.add_task(description, total=total, unit=unit)
            yield lambda n: bar.advance(tid, n)
        finally:
            _shown.clear()

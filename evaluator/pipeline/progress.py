"""Progress bars on a terminal, silence in CI (`CI` set) or without a TTY (§10)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

Advance = Callable[[int], None]


def wanted() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI")


@contextmanager
def task(description: str, total: int, *, enabled: bool | None = None) -> Iterator[Advance]:
    """Yield a function that advances the bar by n; a no-op when progress is off."""
    if not (wanted() if enabled is None else enabled) or total <= 0:
        yield lambda n: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        tid = bar.add_task(description, total=total)
        yield lambda n: bar.advance(tid, n)

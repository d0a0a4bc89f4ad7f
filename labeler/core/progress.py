"""How a long core step says how far it is without drawing anything: the command hands in
a task factory (`evaluator.pipeline.progress.task` draws the bars, the one way to), and the
core only counts. The default shows nothing, as in tests and in CI."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

Advance = Callable[[int], None]
"""Moves a task on by n items."""
TaskFactory = Callable[[str, int], AbstractContextManager[Advance]]
"""`task(description, total)`: a context that yields its `Advance`."""


@contextmanager
def no_task(description: str, total: int) -> Iterator[Advance]:
    """A task that shows nothing."""
    del description, total
    yield lambda n: None

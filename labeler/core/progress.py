"""How a long core step says how far it is without drawing anything: the command hands in
a task factory (`evaluator.pipeline.progress.task` draws the bars, the one way to), and the
core only counts. The default shows nothing, as in tests and in CI."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TypeVar

T = TypeVar("T")

Advance = Callable[[int], None]
"""Moves a task on by n items."""
TaskFactory = Callable[[str, int], AbstractContextManager[Advance]]
"""`task(description, total)`: a context that yields its `Advance`."""


@contextmanager
def no_task(description: str, total: int) -> Iterator[Advance]:
    """A task that shows nothing."""
    del description, total
    yield lambda n: None


class Stepped:
    """An `Advance` that passes counts on in steps of about a 200th of `total`, so a
    per-line or per-record report costs one addition, not a bar's redraw (issue 45)."""

    def __init__(self, advance: Advance, total: int) -> None:
        self._advance, self._step, self._held = advance, max(1, total // 200), 0

    def __call__(self, n: int) -> None:
        self._held += n
        if self._held >= self._step:
            self._advance(self._held)
            self._held = 0

    def flush(self) -> None:
        """Pass on what is held (at the end of the work)."""
        if self._held:
            self._advance(self._held)
            self._held = 0


@contextmanager
def stepped(task: TaskFactory, description: str, total: int) -> Iterator[Stepped]:
    """`task(description, total)` whose advances are `Stepped`, flushed on leaving."""
    with task(description, total) as advance:
        step = Stepped(advance, total)
        yield step
        step.flush()


def each(task: TaskFactory, description: str, items: Sequence[T]) -> Iterator[T]:
    """Each of `items`, counted on `task(description, len(items))` as it is taken."""
    with stepped(task, description, len(items)) as advance:
        for item in items:
            yield item
            advance(1)

"""A progress task factory that records each bar's total and how far it advanced, so a
test asserts the bars a command shows (their names, totals and ends) exactly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

Advance = Callable[[int], None]


def recording(seen: dict[str, list[int]]) -> Callable[[str, int], AbstractContextManager[Advance]]:
    """A `task(description, total)` that records `seen[description] = [total, advanced]`."""

    @contextmanager
    def task(description: str, total: int) -> Iterator[Advance]:
        seen[description] = [total, 0]
        yield lambda n: seen[description].__setitem__(1, seen[description][1] + n)

    return task

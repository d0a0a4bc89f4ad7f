"""The row loader's worker pauses the garbage collector while it reads (issue 33: one step
took over a second when a full collection ran in it) and always gives it back."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from labeler.tui.label.state import collector_paused


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_while_reading_and_on_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_comes_back_when_the_read_is_cancelled() -> None:
    with pytest.raises(KeyboardInterrupt), collector_paused():
        raise KeyboardInterrupt
    assert gc.isenabled()


def test_a_collector_someone_else_turned_off_stays_off() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()

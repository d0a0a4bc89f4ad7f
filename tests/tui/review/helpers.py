"""Key-driving helpers shared by the Pilot and snapshot tests of the review screen."""

from __future__ import annotations

from textual.pilot import Pilot

from labeler.tui.review import ReviewScreen


async def settle(pilot: Pilot[None]) -> None:
    """Let the anchoring worker finish and its result reach the screen."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def screen_of(pilot: Pilot[None]) -> ReviewScreen:
    screen = pilot.app.screen
    assert isinstance(screen, ReviewScreen)
    return screen


async def go_to(pilot: Pilot[None], query: str, start: int) -> None:
    """Walk the waiting list with the arrow keys to the span of `query` at `start`."""
    screen = screen_of(pilot)
    index = next(
        i for i, p in enumerate(screen.items) if (p.query_id, p.span.start) == (query, start)
    )
    below = len(screen.items) - 1 - index
    await pilot.press(
        *(["home", *["down"] * index] if index <= below else ["end", *["up"] * below])
    )
    await settle(pilot)
    assert screen.current is not None and screen.current.query_id == query

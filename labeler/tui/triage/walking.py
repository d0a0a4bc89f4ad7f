"""What the query screen and the answer screen share (§11, §23): one query of a run shown
at a time, through one candidate, and `n`/`p` walking the triage screen's list in its order.

One base, so the two screens cannot walk differently; each says what `load` shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.binding import Binding
from textual.screen import Screen

from labeler.core.corpus.folder import Corpus
from labeler.tui.triage.model import RunView

WALK = Binding.Group("Next/prev")
"""The footer's group for `n` and `p`."""


class WalkingScreen(Screen[None]):
    """A screen on one query of `queries` that `n`/`p` (`action_step`) move along."""

    def __init__(self, run: RunView, candidate: str, corpus: Corpus, queries: Sequence[str],
                 index: int, *, texts: Mapping[str, str] | None = None) -> None:  # fmt: skip
        super().__init__()
        self.run = run
        """The open run."""
        self.candidate = candidate
        """The candidate compared with the baseline."""
        self.corpus = corpus
        """Canonical texts for what the screen draws."""
        self.queries = list(queries)
        """The queries `n` and `p` walk, in the triage screen's order."""
        self.index = index
        """Position of the shown query in `queries`."""
        self.texts = dict(texts or {})
        """Query texts by id, when known."""

    @property
    def query_id(self) -> str:
        return self.queries[self.index]

    def load(self) -> None:
        """Show the query at `index` (each screen its own way)."""
        raise NotImplementedError

    def action_step(self, step: int) -> None:
        index = self.index + step
        if 0 <= index < len(self.queries):
            self.index = index
            self.load()

"""A small app that runs the review screen with spanlab's themes (`spanlab review`).

Like the labelling and triage apps it is handed its world (store, corpus, annotator) and
opens no database itself; it loads the app-wide stylesheets so shared roles (the footer,
toasts) look the same everywhere.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from labeler.core.corpus import Corpus
from labeler.core.store import Store
from labeler.tui.base import ThemedApp
from labeler.tui.review.screen import ReviewScreen


class ReviewApp(ThemedApp):
    """Runs the review screen; ctrl+q quits."""

    TITLE = "spanlab review"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(
        self, store: Store, corpus: Corpus, *, annotator: str, theme: str | None = None
    ) -> None:
        super().__init__(theme=theme)
        self.store = store
        """The label store, handed to the screen."""
        self.corpus = corpus
        """The corpus folder as it is now."""
        self.annotator = annotator
        """Whose name goes on every decision."""

    def on_mount(self) -> None:
        self.push_screen(ReviewScreen(self.store, self.corpus, annotator=self.annotator))


def run_review_app(
    store: Store, corpus: Corpus, *, annotator: str, theme: str | None = None
) -> None:
    """Run the review screen until the person quits; an unknown theme raises ConfigError."""
    ReviewApp(store, corpus, annotator=annotator, theme=theme).run()

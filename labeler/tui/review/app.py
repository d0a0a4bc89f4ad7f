"""A small app that runs the review screen with spanlab's themes (`spanlab review`).

Like the labelling and triage apps it is handed its world (store, corpus, annotator) and
opens no database itself; it loads the labelling app's stylesheets so shared roles (the
footer, toasts) look the same everywhere.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from labeler.core.corpus import Corpus
from labeler.core.store import Store
from labeler.tui.app import STYLESHEETS
from labeler.tui.review.screen import ReviewScreen
from labeler.tui.themes import VARIABLE_DEFAULTS, load_themes, resolve, themes_folder


class ReviewApp(App[None]):
    """Runs the review screen; ctrl+q quits."""

    TITLE = "spanlab review"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    def __init__(
        self, store: Store, corpus: Corpus, *, annotator: str, theme: str | None = None
    ) -> None:
        folder = themes_folder()
        super().__init__(css_path=[folder / name for name in STYLESHEETS])
        self.store = store
        """The label store, handed to the screen."""
        self.corpus = corpus
        """The corpus folder as it is now."""
        self.annotator = annotator
        """Whose name goes on every decision."""
        available = load_themes(folder)
        for palette in available.values():
            self.register_theme(palette)
        self._theme_name = resolve(theme, available)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def on_mount(self) -> None:
        self.theme = self._theme_name
        self.push_screen(ReviewScreen(self.store, self.corpus, annotator=self.annotator))


def run_review_app(
    store: Store, corpus: Corpus, *, annotator: str, theme: str | None = None
) -> None:
    """Run the review screen until the person quits; an unknown theme raises ConfigError."""
    ReviewApp(store, corpus, annotator=annotator, theme=theme).run()

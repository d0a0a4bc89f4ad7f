"""What every spanlab app shares: the app-wide stylesheets and palettes in `themes/`, and
defaults for our own theme variables. The one app shows the label, review, triage and
stats screens; each brings its own .tcss from its package (`CSS_PATH`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual.app import App

from labeler.tui.themes import VARIABLE_DEFAULTS, load_themes, resolve, themes_folder

STYLESHEETS = ("app.tcss", "dialogs.tcss", "stats.tcss")
"""The app-wide stylesheets, all in `themes/`, using only theme variables."""


class ThemedApp(App[None]):
    """An App with spanlab's stylesheets and palettes; `theme` names one (None: default)."""

    def __init__(self, *, theme: str | None = None, stylesheets: Sequence[Path] = ()) -> None:
        """`stylesheets` are the default screen's own: Textual reads a screen's `CSS_PATH`
        only when the screen is pushed, not when `get_default_screen` returns it."""
        folder = themes_folder()
        super().__init__(css_path=[*(folder / name for name in STYLESHEETS), *stylesheets])
        for palette in load_themes(folder).values():
            self.register_theme(palette)
        # Set before the first style pass, so the stylesheet is not parsed twice.
        self.theme = resolve(theme, list(self.available_themes))

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

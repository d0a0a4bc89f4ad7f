"""What every spanlab app shares: the stylesheets and palettes in `themes/`, and defaults
for our own theme variables. The label, review and triage apps differ only in screens.
"""

from __future__ import annotations

from textual.app import App

from labeler.tui.themes import VARIABLE_DEFAULTS, load_themes, resolve, themes_folder

STYLESHEETS = ("app.tcss", "label.tcss", "dialogs.tcss", "stats.tcss")
"""One stylesheet per screen area, all in `themes/`, using only theme variables."""


class ThemedApp(App[None]):
    """An App with spanlab's stylesheets and palettes; `theme` names one (None: default)."""

    def __init__(self, *, theme: str | None = None) -> None:
        folder = themes_folder()
        super().__init__(css_path=[folder / name for name in STYLESHEETS])
        for palette in load_themes(folder).values():
            self.register_theme(palette)
        # Set before the first style pass, so the stylesheet is not parsed twice.
        self.theme = resolve(theme, list(self.available_themes))

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

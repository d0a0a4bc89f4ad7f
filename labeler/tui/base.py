"""What every spanlab app shares: the app-wide stylesheets and palettes in `themes/`,
defaults for our own theme variables, and notifications that escape outside text. The one
app shows the label, review, triage and stats screens; each brings its own .tcss from its
package (`CSS_PATH`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual.app import App
from textual.notifications import SeverityLevel

from labeler.core.display import shown
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

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification (screens' and widgets' go through the app's) is shown with
        its outside text escaped (§13): an error may quote a question or a server."""
        super().notify(shown(message), title=shown(title, lines=False), severity=severity,
                       timeout=timeout, markup=markup)  # fmt: skip

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

"""A small app that runs the triage screens with spanlab's themes (`spanlab triage`).

It is handed its world — the runs folder, the corpus, optionally query texts and a way to
open the label screen — and opens no database itself. It loads the labelling app's
stylesheets too, so the label screen it may push looks as it does at home.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen

from labeler.core.corpus import Corpus
from labeler.tui.app import STYLESHEETS
from labeler.tui.settings import Settings
from labeler.tui.themes import VARIABLE_DEFAULTS, load_themes, resolve, themes_folder
from labeler.tui.triage.messages import LabelRequested
from labeler.tui.triage.query_screen import QueryScreen
from labeler.tui.triage.screen import TriageScreen

LabelOpener = Callable[[str], Screen[Any]]
"""Builds the label screen with the given query selected (see `launch.label_opener`)."""


class TriageApp(App[None]):
    """Triage a run; `e` on a query opens it for labelling when an opener was given."""

    TITLE = "spanlab triage"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+b", "back_to_triage", "Triage"),
    ]

    def __init__(self, runs_dir: Path, corpus: Corpus, *, run_id: str | None = None,
                 theme: str | None = None, open_label: LabelOpener | None = None,
                 texts: Mapping[str, str] | None = None,
                 settings: Settings | None = None) -> None:  # fmt: skip
        folder = themes_folder()
        super().__init__(css_path=[folder / name for name in STYLESHEETS])
        self.runs_dir = runs_dir
        """The run folders (`.spanlab/runs`)."""
        self.corpus = corpus
        """The corpus as it is now."""
        self.run_id = run_id
        """The run to open (None: the newest)."""
        self.open_label = open_label
        """How to open the label screen, when there is a label store."""
        self.texts = texts
        """Query texts by id, when the caller has them."""
        self.settings = settings or Settings()
        """Blinking (snapshot tests turn it off)."""
        available = load_themes(folder)
        for palette in available.values():
            self.register_theme(palette)
        self._theme_name = resolve(theme, available)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def on_mount(self) -> None:
        self.theme = self._theme_name
        self.push_screen(TriageScreen(self.runs_dir, self.corpus, run_id=self.run_id,
                                      texts=self.texts))  # fmt: skip

    def on_label_requested(self, message: LabelRequested) -> None:
        if self.open_label is None:
            self.notify("no label store here: run `spanlab triage` in the project folder",
                        severity="warning")  # fmt: skip
            return
        self.push_screen(self.open_label(message.query))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back_to_triage":
            return not isinstance(self.screen, TriageScreen | QueryScreen)
        return True

    def action_back_to_triage(self) -> None:
        if not isinstance(self.screen, TriageScreen | QueryScreen):
            self.pop_screen()

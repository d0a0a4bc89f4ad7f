"""A small app that runs the triage screens with spanlab's themes (`spanlab triage`).

It is handed its world — the runs folder, the corpus, optionally query texts and a way to
open the label screen — and opens no database itself. It loads the labelling app's
stylesheets too, so the label screen it may push looks as it does at home.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen

from labeler.core.corpus import Corpus
from labeler.tui.base import ThemedApp
from labeler.tui.settings import Settings
from labeler.tui.triage.messages import LabelRequested
from labeler.tui.triage.query_screen import QueryScreen
from labeler.tui.triage.screen import TriageScreen

LabelOpener = Callable[[str], Screen[Any]]
"""Builds the label screen with the given query selected (see `launch.label_opener`)."""


class TriageApp(ThemedApp):
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
        super().__init__(theme=theme)
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

    def on_mount(self) -> None:
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

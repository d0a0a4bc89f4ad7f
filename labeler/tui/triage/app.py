"""A small app that runs the triage screens with spanlab's themes (`spanlab triage`).

It is handed its world — the runs folder, the corpus, optionally query texts and a way to
open the label screen — and opens no database itself. The label screen it may push
brings its own stylesheet (`label/label.tcss`), so it looks as it does at home. `?` lists
the keys of the screen on top first, then the other triage screen's, then the app's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import OptionList

from labeler.core.corpus import Corpus
from labeler.tui.base import ThemedApp
from labeler.tui.label import LabelScreen
from labeler.tui.screens.help import HelpScreen
from labeler.tui.settings import Settings
from labeler.tui.triage.messages import LabelRequested
from labeler.tui.triage.query_screen import QueryScreen
from labeler.tui.triage.screen import TriageScreen
from labeler.tui.triage.widgets import IdList
from labeler.tui.widgets.document_view import DocumentView

LabelOpener = Callable[[str], Screen[Any]]
"""Builds the label screen with the given query selected (see `launch.label_opener`)."""

KeyGroups = list[tuple[str, Sequence[BindingType]]]
"""Titled lists of bindings, as `HelpScreen` shows them."""


def list_keys() -> list[BindingType]:
    """The triage lists' keys: IdList's enter over OptionList's, then the moves."""
    own = [b for b in IdList.BINDINGS if isinstance(b, Binding)]
    keys = {b.key for b in own}
    return [*own, *(b for b in OptionList.BINDINGS if isinstance(b, Binding) and b.key not in keys)]


TRIAGE_KEYS: KeyGroups = [
    ("Triage screen", TriageScreen.BINDINGS),
    ("Lists", list_keys()),
    ("Query screen", QueryScreen.BINDINGS),
]
"""Both triage screens' keys; titles fit the help's 16-column key column."""
LABEL_KEYS: KeyGroups = [
    ("Document", DocumentView.BINDINGS),
    ("Label screen", LabelScreen.BINDINGS),
]
"""The label screen's keys, when `e` has opened it from triage."""


class TriageApp(ThemedApp):
    """Triage a run; `e` on a query opens it for labelling when an opener was given."""

    TITLE = "spanlab triage"
    BINDINGS: ClassVar[list[BindingType]] = [
        # Quit first: the app's keys come last in a footer, and the last ones fall off it.
        # The way back from the label screen next; `?` there falls off (the palette has it).
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+b", "back_to_triage", "Triage"),
        Binding("question_mark", "help", "Keys"),
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
            # Not from the help either: it would close the help, not go back to triage.
            return not isinstance(self.screen, TriageScreen | QueryScreen | HelpScreen)
        return True

    def action_help(self) -> None:
        here = LABEL_KEYS if isinstance(self.screen, LabelScreen) else []
        if isinstance(self.screen, QueryScreen):
            here = TRIAGE_KEYS[2:]
        others = [group for group in TRIAGE_KEYS if group not in here]
        self.push_screen(HelpScreen([*here, *others, ("Anywhere", self.BINDINGS)]))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Keys", "Every key of the triage screens", self.action_help)

    def action_back_to_triage(self) -> None:
        if not isinstance(self.screen, TriageScreen | QueryScreen):
            self.pop_screen()

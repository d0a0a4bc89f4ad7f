"""The labelling app: it is handed its world (store, corpus, annotator) and shows screens.

It owns what is app-wide: themes from `themes/`, the poll that notices other annotators'
commits, the help and stats screens, and the command palette entries. Everything about
labelling lives in the label screen.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from labeler.core.corpus import Corpus
from labeler.core.store import Store
from labeler.tui.base import ThemedApp
from labeler.tui.label import LABEL_STYLESHEET, Editor, LabelScreen
from labeler.tui.messages import LabelsChanged
from labeler.tui.screens.help import HelpScreen
from labeler.tui.screens.stats import StatsScreen
from labeler.tui.settings import Settings
from labeler.tui.widgets.document_view import DocumentView


class SpanlabApp(ThemedApp):
    """Label queries against a corpus; every edit is committed at once."""

    TITLE = "spanlab"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Keys"),
        Binding("ctrl+t", "stats", "Stats", show=False),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        store: Store,
        corpus: Corpus,
        *,
        annotator: str,
        theme: str | None = None,
        settings: Settings | None = None,
    ) -> None:
        super().__init__(theme=theme, stylesheets=[LABEL_STYLESHEET])
        self.store = store
        self.corpus = corpus
        self.editor = Editor(store, corpus, annotator)
        """Every edit goes through it, so every edit can be undone."""
        self.settings = settings or Settings()
        """Blinking and polling (tests turn them down)."""
        self._seen_version = store.data_version()

    def get_default_screen(self) -> Screen[Any]:
        return LabelScreen(self.editor)

    def on_mount(self) -> None:
        self.set_interval(self.settings.poll_interval, self.poll)

    def poll(self) -> None:
        """Tell every screen when another connection has committed to the store."""
        version = self.store.data_version()
        if version != self._seen_version:
            self._seen_version = version
            for screen in self.screen_stack:
                screen.post_message(LabelsChanged(version))

    def action_help(self) -> None:
        groups = [
            ("Document", DocumentView.BINDINGS),
            ("Label screen", LabelScreen.BINDINGS),
            ("Anywhere", self.BINDINGS),
        ]
        self.push_screen(HelpScreen(groups))

    def action_stats(self) -> None:
        if not isinstance(self.screen, StatsScreen):
            self.push_screen(StatsScreen(self.store))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Keys", "Every key of the label screen", self.action_help)
        yield SystemCommand(
            "Stats", "Queries per status, pattern, slice and annotator", self.action_stats
        )
        if isinstance(screen, LabelScreen):
            for action, title, text in (
                ("search", "Search the corpus", "Fuzzy search for the current query"),
                ("open_document", "Open a document", "Pick a document to label in"),
                ("new", "New query", "Create a query"),
                ("duplicate", "Duplicate query", "Copy the current query with its evidence"),
                ("undo", "Undo", "Undo the last edit"),
                ("redo", "Redo", "Redo the last undone edit"),
                ("toggle_versions", "Per-annotator view", "Colour spans by annotator"),
            ):
                yield SystemCommand(title, text, getattr(screen, f"action_{action}"))

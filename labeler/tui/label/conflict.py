"""The conflict dialog: another annotator changed what an edit was based on (§3).

It shows the store's refusal (who, what, when) and answers `reload` or `reapply`; the
screen that pushed it does the one it is told, so nothing is ever overwritten silently.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

Choice = Literal["reload", "reapply"]


class ConflictScreen(ModalScreen[Choice]):
    """Not saved: r reloads (keeps their change), a reapplies yours over it."""

    DEFAULT_CSS = """
    ConflictScreen #conflict-message { width: 1fr; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r,escape", "choose('reload')", "Reload"),
        Binding("a", "choose('reapply')", "Reapply mine"),
    ]

    def __init__(self, message: str, *, verb: str = "save", reapply: bool = True) -> None:
        """`reapply=False`: a refusal no retry overrides (a blind delete), so no `a`."""
        super().__init__()
        self._message = message
        self._verb = verb
        self._reapply = reapply

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog conflict"):
            yield Label(f"Conflict: cannot {self._verb}", classes="dialog-title")
            yield Label(self._message, id="conflict-message")
            mine = " · a: reapply mine over theirs" if self._reapply else ""
            yield Label(f"r: reload (keep theirs){mine}", classes="dialog-hint")

    def action_choose(self, choice: Choice) -> None:
        if choice == "reapply" and not self._reapply:
            return
        self.dismiss(choice)

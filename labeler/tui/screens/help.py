"""The keys, listed from the bindings themselves so the help can never drift from them.

Cursor movements are many bindings with one meaning, so they are summed up in one row
(their keys listed); every other binding gets a row with its tooltip, else its description
(a footer word such as "Edges" has the whole sentence in its tooltip).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Label, Static

KEY_CELLS = 16
"""Width of the key column; every key cell fits it, so nothing is cut at 80 columns."""
MOVES = ("arrows …", "move the cursor: arrows, home/end, pgup/pgdn, ctrl+←/→ (words), "
         "ctrl+home/end; with shift, extend the selection")  # fmt: skip
"""The summary of every cursor movement key: a short key cell, the keys in the text."""


def keys_table(
    groups: Sequence[tuple[str, Sequence[BindingType]]], show: Callable[[str], str]
) -> Table:
    """Key and what it does, one section per group; `show` formats one key."""
    table = Table(box=None, show_header=False, expand=True, pad_edge=False)
    table.add_column("key", no_wrap=True, style="bold", width=KEY_CELLS)
    table.add_column("does", ratio=1)
    for title, bindings in groups:
        table.add_row(f"[reverse] {title} [/]", "")
        moves = [b for b in bindings if isinstance(b, Binding) and b.action.startswith("move(")]
        if moves:
            table.add_row(*MOVES)
        for b in bindings:
            if isinstance(b, Binding) and b.description and b not in moves:
                keys = " ".join(show(k.strip()) for k in b.key.split(","))
                table.add_row(keys, b.tooltip or b.description)  # the footer's word is short
    return table


def focus_line(widget: Widget | None) -> str:
    """`Focus: …` for a screen that does not describe its own parts: the widget's id or kind."""
    if widget is None:
        return "Focus: nothing (tab moves it)."
    return f"Focus: {widget.id or type(widget).__name__} (tab moves it)."


class HelpScreen(ModalScreen[None]):
    """Every key of the label screen; escape or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(
        self, groups: Sequence[tuple[str, Sequence[BindingType]]], focus: str = ""
    ) -> None:
        super().__init__()
        self._groups = groups
        self._focus = focus
        """Which widget had the focus and what that means for the keys (empty: unsaid)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Label("Keys (esc closes · ctrl+p: command palette)", classes="dialog-title")
            if self._focus:
                yield Label(self._focus, id="help-focus", classes="help-focus", markup=False)
            yield Static(keys_table(self._groups, self._key))

    def _key(self, key: str) -> str:
        return self.app.get_key_display(Binding(key, ""))

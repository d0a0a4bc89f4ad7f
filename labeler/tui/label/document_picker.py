"""The document picker: every document with its span counts, filtered as you type.

Returns the chosen document id; the label screen loads it into the document view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from labeler.tui.settings import Field


def document_prompt(doc: str, current: int, total: int) -> Text:
    """`doc  current/total` spans: this query's, then everyone's."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"{current:>3}", style="bold" if current else "dim")
    line.append(f"/{total:<4} ", style="dim")
    line.append(doc)
    return line


class DocumentPicker(ModalScreen[str | None]):
    """Pick a document; type to filter by id."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "to_list", "List", show=False),
    ]

    def __init__(
        self, docs: Sequence[str], current: Mapping[str, int], total: Mapping[str, int]
    ) -> None:
        super().__init__()
        self._docs = docs
        self._current = current
        self._total = total

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog picker"):
            yield Label("Open document (spans: this query / all)", classes="dialog-title")
            yield Field(placeholder="type to filter", id="filter")
            yield OptionList(id="documents")
            yield Label("enter: open · ↓: list · esc: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self._fill("")

    def _fill(self, needle: str) -> None:
        shown = [d for d in self._docs if needle.lower() in d.lower()]
        counts = self._current, self._total
        self.query_one(OptionList).set_options(
            Option(document_prompt(d, counts[0].get(d, 0), counts[1].get(d, 0)), id=d)
            for d in shown
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        listing = self.query_one(OptionList)
        if listing.option_count:
            self.dismiss(listing.get_option_at_index(listing.highlighted or 0).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_to_list(self) -> None:
        self.query_one(OptionList).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

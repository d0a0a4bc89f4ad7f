"""Two one-key dialogs of the label screen: `p` picks the boundary pattern, `l` edits the
slices with completion from the slices already in use (as Prodigy and INCEpTION do).

Like the query form they only return a value; the label screen saves it through the
editor (compare-and-set, undo, the conflict dialog), so there is one save path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from labeler.core.errors import LabelError
from labeler.core.values import Boundary, Query
from labeler.tui.label.query_form import nfc, parse_slices
from labeler.tui.settings import Field

PATTERNS = tuple(Boundary)
"""The patterns design §3 allows, in the order the picker numbers them (1 to 8)."""
SEPARATORS = ", \t"
"""What separates slices as typed (`parse_slices` accepts commas and spaces)."""


class PatternPicker(ModalScreen[Boundary | None]):
    """The boundary patterns, the current one highlighted; enter or its digit picks one."""

    DEFAULT_CSS = """
    PatternPicker OptionList, PatternPicker OptionList:focus {
        height: auto; max-height: 10; border: none;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, len(PATTERNS) + 1)),
    ]

    def __init__(self, query_id: str, current: Boundary) -> None:
        super().__init__()
        self._title = f"Pattern of {query_id}"
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="dialog-title")
            yield OptionList(
                *(Option(f"{n} {b.value}", id=b.value) for n, b in enumerate(PATTERNS, 1))
            )
            yield Label("enter or 1-8: set · esc: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = PATTERNS.index(self._current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(Boundary(str(event.option.id)))

    def action_pick(self, index: int) -> None:
        self.dismiss(PATTERNS[index])

    def action_cancel(self) -> None:
        self.dismiss(None)


def last_slice(line: str) -> tuple[str, str]:
    """The line cut before its last slice: (`"critical, "`, `"ta"`)."""
    cut = max(line.rfind(sep) for sep in SEPARATORS) + 1
    return line[:cut], line[cut:]


class SliceSuggester(Suggester):
    """Completes the last slice typed from `known` (most used first), skipping those
    already on the line; exact case first, then any case."""

    def __init__(self, known: Sequence[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.known = list(known)
        """The slices in use, in the order they are offered."""

    async def get_suggestion(self, value: str) -> str | None:
        head, typed = last_slice(value)
        if not typed:
            return None
        listed = set(parse_slices(head))
        fresh = [k for k in self.known if k not in listed and len(k) > len(typed)]
        found = next((k for k in fresh if k.startswith(typed)), None)
        folded = typed.casefold()
        found = found or next((k for k in fresh if k.casefold().startswith(folded)), None)
        return None if found is None else head + found


class SliceField(Field):
    """The slices line: `right` (Input's own) or `tab` at the end takes the completion."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "accept", "Take the completion", show=False)
    ]

    def action_accept(self) -> None:
        if self.cursor_at_end:
            self.action_cursor_right()  # at the end, Input's right takes the suggestion


class SlicePrompt(ModalScreen[tuple[str, ...] | None]):
    """A query's slices on one line, completed from the slices in use; enter saves."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, query_id: str, slices: Sequence[str], known: Sequence[str]) -> None:
        super().__init__()
        self._title = f"Slices of {query_id}"
        self._line = ", ".join(slices)
        self._known = known

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title, classes="dialog-title")
            field = SliceField(self._line, placeholder="e.g. critical, tables", id="slices")
            field.suggester = SliceSuggester(self._known)
            yield field
            yield Label("", id="error", classes="dialog-error")
            yield Label("tab or →: complete · enter: save · esc: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        field = self.query_one(SliceField)
        field.cursor_position = len(field.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        slices = parse_slices(nfc(event.value))
        try:
            Query("q-check", "check", slices=slices)  # the store's own checks
        except LabelError as exc:
            self.query_one("#error", Label).update(exc.message)
            return
        self.dismiss(slices)

    def action_cancel(self) -> None:
        self.dismiss(None)

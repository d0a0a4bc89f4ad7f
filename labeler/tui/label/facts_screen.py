"""The facts dialog (`F` without a selection): a query's answer labels listed, typed, given
alternatives and taken out (§23).

Like the pattern and slice dialogs it only returns a value, the whole list as the person
left it; the label screen saves it through the editor (compare-and-set, undo, the conflict
dialog), so a session in the dialog is one edit and one undo step.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from labeler.core.display import shown
from labeler.core.errors import LabelError
from labeler.core.facts import (
    MAX_FACT_CHARS,
    Facts,
    with_alternative,
    with_fact,
    without_phrasing,
)
from labeler.tui.settings import Field

HINT = "enter: add · ↑: the list, where a: alternative, x: delete\nctrl+s: save · esc: cancel"
"""The dialog's keys, on two lines that fit its 70 columns (66 inside)."""


def fact_lines(facts: Facts) -> list[Option]:
    """One option per phrasing: `1. 30 days`, then `   or thirty days` for its others; the
    option's id says which (`fact:phrasing`)."""
    out = []
    for i, fact in enumerate(facts):
        for j, phrase in enumerate(fact):
            head = f"{i + 1}. " if j == 0 else "   or "
            out.append(Option(Text(head + shown(phrase, lines=False)), id=f"{i}:{j}"))
    return out


class FactsDialog(ModalScreen[Facts | None]):
    """The facts of one query; a typed line becomes a new fact, or, after `a` on a listed
    one, another phrasing of it."""

    DEFAULT_CSS = """
    FactsDialog OptionList, FactsDialog OptionList:focus {
        height: auto; max-height: 9; border: none;
    }
    FactsDialog #fact-mode { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel: the facts stay as they were"),
        Binding("ctrl+s", "save", "Save the facts (or enter on an empty line)"),
        Binding("up", "to_list", "From the line to the list", show=False),  # no use for ↑ there
    ]

    def __init__(self, query_id: str, facts: Facts) -> None:
        super().__init__()
        self.query_id = query_id
        self.facts = facts
        """The list as it stands in the dialog (saved only with ctrl+s)."""
        self.alternative_of: int | None = None
        """The fact the next typed line is another phrasing of (None: a new fact)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(
                f"Facts a complete answer to {self.query_id} states", classes="dialog-title"
            )
            yield FactList(*fact_lines(self.facts), id="facts")
            yield Label("", id="fact-mode")
            yield Field(
                placeholder=f"a short phrase (up to {MAX_FACT_CHARS} characters)", id="phrase"
            )
            yield Label("", id="error", classes="dialog-error")
            yield Label(HINT, classes="dialog-hint")

    def on_mount(self) -> None:
        self._show_mode()
        self.query_one("#phrase", Field).focus()

    def _show_mode(self) -> None:
        at = self.alternative_of
        said = "new fact:" if at is None else f"another phrasing of fact {at + 1}:"
        self.query_one("#fact-mode", Label).update(said)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        phrase = event.value
        if not phrase.strip():
            self.action_save()  # enter on an empty line: done
            return
        try:
            if self.alternative_of is None:
                self.facts = with_fact(self.query_id, self.facts, phrase)
            else:
                self.facts = with_alternative(
                    self.query_id, self.facts, self.alternative_of, phrase
                )
        except LabelError as exc:
            self.query_one("#error", Label).update(shown(exc.message, lines=False))
            return
        event.input.value = ""
        self.alternative_of = None
        self._refill()

    def _refill(self) -> None:
        self.query_one("#error", Label).update("")
        listed = self.query_one(FactList)
        listed.clear_options()
        listed.add_options(fact_lines(self.facts))
        self._show_mode()

    def _highlighted(self) -> tuple[int, int] | None:
        listed = self.query_one(FactList)
        if listed.highlighted is None:
            return None
        i, _, j = str(listed.get_option_at_index(listed.highlighted).id).partition(":")
        return int(i), int(j)

    def action_alternative(self) -> None:
        """The next typed line is another phrasing of the highlighted fact."""
        at = self._highlighted()
        if at is not None:
            self.alternative_of = at[0]
            self._show_mode()
            self.query_one("#phrase", Field).focus()

    def action_delete(self) -> None:
        """Take out the highlighted phrasing (a fact's last: the fact)."""
        at = self._highlighted()
        if at is not None:
            self.facts = without_phrasing(self.facts, *at)
            self.alternative_of = None
            self._refill()

    def action_to_list(self) -> None:
        listed = self.query_one(FactList)
        if listed.option_count:
            listed.focus()
            listed.highlighted = listed.option_count - 1 if listed.highlighted is None else (
                listed.highlighted)  # fmt: skip

    def action_save(self) -> None:
        self.dismiss(self.facts)

    def action_cancel(self) -> None:
        self.dismiss(None)


class FactList(OptionList):
    """The listed phrasings; `a` and `x` act on the highlighted one (the dialog's actions)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "screen.alternative", "Type another phrasing of the highlighted fact"),
        Binding("x,delete", "screen.delete", "Delete the highlighted phrasing"),
    ]

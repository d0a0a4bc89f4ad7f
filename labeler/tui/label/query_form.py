"""The query form: text, pattern, slices, status, abstain and notes in one modal.

It checks the fields by building a `Query` value (the same validation the store runs)
and returns them as `QueryFields`; the label screen decides whether that creates a query
or changes one, so the form never edits anything itself.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, Label, Select

from labeler.core.display import shown
from labeler.core.errors import LabelError
from labeler.core.values import Boundary, Query, Status
from labeler.tui.settings import Field


@dataclass(frozen=True)
class QueryFields:
    """The editable fields of a query, as the form returns them."""

    text: str
    """The question."""
    boundary: Boundary
    """Its boundary pattern."""
    slices: tuple[str, ...]
    """Its slices, sorted."""
    status: Status
    """draft, labelled or reviewed."""
    abstain: bool
    """No evidence exists."""
    notes: str
    """Free text."""

    @classmethod
    def of(cls, q: Query) -> QueryFields:
        return cls(q.text, q.boundary, q.slices, q.status, q.abstain, q.notes)

    def changes(self) -> dict[str, object]:
        return {
            "text": self.text,
            "boundary": self.boundary,
            "slices": self.slices,
            "status": self.status,
            "abstain": self.abstain,
            "notes": self.notes,
        }


def nfc(typed: str) -> str:
    """Typed text as stored: NFC (a terminal may send `e` + U+0301 for `é`)."""
    return unicodedata.normalize("NFC", typed)


def parse_slices(line: str) -> tuple[str, ...]:
    """Slices typed as `critical, tables lang:de` (commas or spaces)."""
    return tuple(sorted({s for s in re.split(r"[,\s]+", line) if s}))


class Tick(Checkbox):
    """A checkbox whose box is empty when off: a dimmed X reads as ticked on 16 colours."""

    def on_mount(self) -> None:
        self._mark()

    def watch_value(self) -> None:
        super().watch_value()
        self._mark()

    def _mark(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        self.refresh()


class QueryForm(ModalScreen[QueryFields | None]):
    """Edit (or create) a query; enter or ctrl+s saves, escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
    ]

    def __init__(self, title: str, fields: QueryFields, *, has_evidence: bool = False) -> None:
        super().__init__()
        self._title = title
        self._fields = fields
        self._has_evidence = has_evidence

    def compose(self) -> ComposeResult:
        f = self._fields
        with Vertical(classes="dialog form"):
            yield Label(self._title, classes="dialog-title")
            with Horizontal(classes="row"):
                yield Label("Text", classes="name")
                # A question stored before the control-character rule is shown (and saved)
                # with its controls as visible escapes: what the person sees is what is kept.
                yield Field(shown(f.text), placeholder="the question, as a user asks it",
                            id="text")  # fmt: skip
            with Horizontal(classes="row"):
                yield Label("Pattern", classes="name")
                patterns = [(b.value, b) for b in Boundary]
                yield Select(
                    patterns, value=f.boundary, allow_blank=False, compact=True, id="boundary"
                )
            with Horizontal(classes="row"):
                yield Label("Slices", classes="name")
                yield Field(", ".join(f.slices), placeholder="e.g. critical, tables", id="slices")
            with Horizontal(classes="row"):
                yield Label("Status", classes="name")
                statuses = [(s.value, s) for s in Status]
                yield Select(statuses, value=f.status, allow_blank=False, compact=True, id="status")
            with Horizontal(classes="row"):
                yield Label("Abstain", classes="name")
                yield Tick("no evidence exists", f.abstain, compact=True, id="abstain")
            with Horizontal(classes="row"):
                yield Label("Notes", classes="name")
                yield Field(shown(f.notes), id="notes")
            yield Label("", id="error", classes="dialog-error")
            yield Label(
                "ctrl+s (or enter in a text field): save · esc: cancel · tab: next",
                classes="dialog-hint",
            )

    def read(self) -> QueryFields:
        """The fields as typed; raises LabelError when a query could not hold them."""
        fields = QueryFields(
            text=nfc(self.query_one("#text", Input).value.strip()),
            boundary=Boundary(str(self.query_one("#boundary", Select).value)),
            slices=parse_slices(nfc(self.query_one("#slices", Input).value)),
            status=Status(str(self.query_one("#status", Select).value)),
            abstain=self.query_one("#abstain", Checkbox).value,
            notes=nfc(self.query_one("#notes", Input).value.strip()),
        )
        Query("q-check", fields.text, slices=fields.slices)  # the store's own checks
        if fields.abstain and self._has_evidence:
            raise LabelError("an abstention query has no evidence: delete its spans first")
        leaves_draft = self._fields.status is Status.DRAFT and fields.status is not Status.DRAFT
        if leaves_draft and not fields.abstain and not self._has_evidence:  # as `S` (issue 45)
            raise LabelError(
                "no evidence and no abstention: a draft until a span is drawn or Abstain "
                "is ticked (L labels it empty, asking)"
            )
        return fields

    def action_save(self) -> None:
        try:
            fields = self.read()
        except LabelError as exc:
            self.query_one("#error", Label).update(exc.message)
            return
        self.dismiss(fields)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_cancel(self) -> None:
        self.dismiss(None)

"""Transitions to label: passages across a heading, a list intro, a table header or a code
block's explanation that no query covers yet, most cut by the candidates first (issue 33).

Finding and ranking them is headless (`evaluator.pipeline.transitions`) and runs in a worker,
since ranking cuts every candidate; the screen only lists. Enter hands the chosen passage back
to the label screen, which starts a new query on it with the passage selected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from labeler.core.display import shown
from labeler.core.errors import SpanlabError
from labeler.core.values import Boundary

if TYPE_CHECKING:  # the chunkers load when the screen is first opened, not with the app
    from evaluator.pipeline.transitions import ToLabel
    from evaluator.plan.transitions import Transition

Find = Callable[[Callable[[], bool]], "ToLabel | None"]
"""Finds and ranks the transitions in the worker thread; None when its stop said so."""
SHORT = {
    Boundary.HEADING_PARAGRAPH: "heading→text",
    Boundary.LIST_INTRO_ITEM: "intro→item",
    Boundary.TABLE_HEADER_ROW: "header→row",
    Boundary.CODE_EXPLANATION_SNIPPET: "text→code",
}
"""Each transition kind in twelve columns or fewer."""
LIMIT = 300
"""Transitions listed at most (the list measures every option it holds)."""
NONE_FOUND = "no transition without a query: every heading, list, table and code block is covered"
"""What the list says when there is nothing to label."""


def flat(text: str) -> str:
    """White space runs as one space, then the display rule, for one row."""
    return shown(re.sub(r"\s+", " ", text), lines=False)


MARK = "▶ "
"""The current row's marker: the cursor is not shown by colour alone (16 colours, or none)."""
Key = tuple[str, int, str]
"""A transition as the place remembers it: document, start, kind."""


def key_of(t: Transition) -> Key:
    return (t.doc, t.start, t.kind.value)


@dataclass
class TransitionPlace:
    """Where the cursor was in the last `T` list, kept by the label screen between visits,
    so the next list opens on the same row, or on the one that took its place once the
    passage labelled there has left the list."""

    keys: list[Key] = field(default_factory=list)
    """The rows listed last time, in order."""
    at: int | None = None
    """The row under the cursor then."""

    def resume(self, found: Sequence[Key]) -> int:
        """The row to open on among `found`: the same transition, else the first of those
        after it that is still listed, else the same position."""
        if self.at is None or not found or self.at >= len(self.keys):
            return 0
        rows = {k: n for n, k in enumerate(found)}
        for k in self.keys[self.at :]:
            if k in rows:
                return rows[k]
        return min(self.at, len(found) - 1)


def transition_prompt(t: Transition, text: str, current: bool = False) -> Text:
    """The marker, cuts, kind, document and offset, then the passage, on one row."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(MARK if current else " " * len(MARK), style="bold")
    line.append(f"{len(t.cuts)}✂ " if t.cuts else "   ", style="bold")
    line.append(f"{SHORT.get(t.kind, t.kind.value):<12} ")
    line.append(f"{flat(t.doc)} @{t.start:,} ", style="dim")
    line.append(flat(text[t.start : t.end]))
    return line


def preview(t: Transition, text: str) -> Text:
    """The whole passage, wrapped, with the part after the transition in bold."""
    cut = f"cut by {len(t.cuts)}" if t.cuts else "no candidate cuts inside"
    out = Text(f"{flat(t.doc)} {t.start:,}–{t.end:,} · {t.kind.value} · {cut}\n", style="dim")
    out.append(shown(text[t.start : t.at]))
    out.append(shown(text[t.at : t.end]), style="bold")
    if t.cuts:  # last: the passage comes first in the few rows the preview has
        out.append(f"\ncut by {', '.join(t.cuts)}", style="dim")
    return out


class TransitionsScreen(ModalScreen["Transition | None"]):
    """Where to write the next query: structural transitions no query covers."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "pick", "New query on it"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(
        self, find: Find, text_of: Callable[[str], str], place: TransitionPlace | None = None
    ) -> None:
        """`find` lists and ranks them; `text_of` gives a document's canonical text; `place`
        is where the cursor was last time (updated as it moves)."""
        super().__init__()
        self._find, self._text_of = find, text_of
        self.place = place or TransitionPlace()
        """Where the cursor is, kept for the next visit."""
        self._marked: int | None = None
        self.transitions: list[Transition] = []
        """What is listed, most cut first (empty until the worker is done)."""
        self.note = ""
        """How they were ranked, or why nothing is listed."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog search suggest"):
            yield Label("Transitions to label", classes="dialog-title")
            yield Label("finding transitions and cutting the candidates…", id="note")
            yield OptionList(id="transitions")
            yield Static(id="preview")
            yield Label("enter: new query on it · esc: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.find()

    @work(thread=True, exclusive=True, group="transitions")
    def find(self) -> None:
        worker = get_current_worker()
        try:
            found = self._find(lambda: worker.is_cancelled)
        except SpanlabError as exc:
            self.app.call_from_thread(self.failed, exc.message)
            return
        if found is None or worker.is_cancelled:
            return  # closed (or the app quits) while the candidates were cut
        self.app.call_from_thread(self.show, list(found.transitions), found.note)

    def failed(self, message: str) -> None:
        if self.is_mounted:
            self.query_one("#note", Label).update(Text(shown(message), style="red"))

    def show(self, found: list[Transition], note: str) -> None:
        """List the first LIMIT of `found`, with how they were ranked (`note`)."""
        if not self.is_mounted:  # dismissed while the candidates were cut
            return
        self.transitions = found[:LIMIT]
        listed = f" (the first {LIMIT} listed)" if len(found) > LIMIT else ""
        self.note = f"{len(found):,} without a query{listed} · {note}"
        self.query_one("#note", Label).update(Text(self.note, style="dim"))
        listing = self.query_one(OptionList)
        listing.set_options(Option(transition_prompt(t, self._text_of(t.doc)), id=str(n))
                            for n, t in enumerate(self.transitions))  # fmt: skip
        if not found:
            listing.add_option(Option(Text(NONE_FOUND, style="dim")))
            return
        keys = [key_of(t) for t in self.transitions]
        at = self.place.resume(keys)
        self.place.keys = keys
        listing.highlighted = at
        listing.scroll_to_highlight(top=False)
        self._preview(at)

    def _preview(self, at: int) -> None:
        t = self.transitions[at]
        self.query_one("#preview", Static).update(preview(t, self._text_of(t.doc)))
        self.place.at = at
        listing = self.query_one(OptionList)
        for row, current in ((self._marked, False), (at, True)):
            if row is not None and row < len(self.transitions):
                t = self.transitions[row]
                prompt = transition_prompt(t, self._text_of(t.doc), current)
                listing.replace_option_prompt_at_index(row, prompt)
        self._marked = at

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self._preview(int(event.option.id))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_pick()

    def action_pick(self) -> None:
        at = self.query_one(OptionList).highlighted
        if at is not None and at < len(self.transitions):
            self.dismiss(self.transitions[at])

    def action_cancel(self) -> None:
        self.dismiss(None)

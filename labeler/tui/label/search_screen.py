"""Corpus search: type a query's words, see the best passages, jump to one.

The index is built once (on first use, in a worker thread) and searching runs in a
worker too, so typing stays responsive on a large corpus. The chosen `Hit` goes back to
the label screen, which opens the document with the passage selected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from labeler.core.display import shown
from labeler.tui.label.corpus_search import CorpusSearch, Hit
from labeler.tui.settings import Field

LIMIT = 30
"""Passages listed."""
NO_RESULTS = "no results yet: enter searches for these words"
"""What ↓ says before any search has listed a passage."""


def hit_prompt(hit: Hit) -> Text:
    """Score, document and offset, then the passage's start, on one line."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"{hit.score:>3.0f}% ", style="bold")
    line.append(f"{hit.doc} @{hit.start:,} ", style="dim")
    line.append(shown(re.sub(r"\s+", " ", hit.text), lines=False))
    return line


def preview(hit: Hit | None) -> Text:
    """The whole passage of the highlighted hit, wrapped, under the list."""
    if hit is None:
        return Text("")
    out = Text(f"{hit.doc} {hit.start:,}–{hit.end:,}\n", style="dim")
    out.append(shown(hit.text))
    return out


class SearchScreen(ModalScreen[Hit | None]):
    """Fuzzy search over every document."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "to_list", "Results", show=False),
    ]

    def __init__(self, searcher: Callable[[], CorpusSearch], text: str = "") -> None:
        super().__init__()
        self._searcher = searcher
        self._text = text
        self.hits: list[Hit] = []
        """The passages listed, best first."""
        self._searched = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog search"):
            yield Label("Search the corpus", classes="dialog-title")
            yield Field(self._text, placeholder="words of the question", id="words")
            yield OptionList(id="hits")
            yield Static(id="preview")
            yield Label("enter: search/open · ↓: results · esc: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        if self._text.strip():
            self.start_search(self._text)

    def start_search(self, text: str) -> None:
        """Search in a worker, saying so meanwhile: the first search indexes the corpus,
        which takes seconds on a large one."""
        listing = self.query_one(OptionList)
        listing.clear_options()
        listing.loading = True
        info = getattr(self._searcher, "cache_info", None)  # functools.cache: built yet?
        first = info is not None and info().currsize == 0
        words = "indexing the corpus for its first search…" if first else "searching…"
        self.query_one("#preview", Static).update(Text(words, style="dim"))
        self.run_search(text)

    @work(thread=True, exclusive=True, group="corpus-search")
    def run_search(self, text: str) -> None:
        hits = self._searcher().search(text, limit=LIMIT)
        self.app.call_from_thread(self.show_hits, text, hits)

    def show_hits(self, text: str, hits: list[Hit]) -> None:
        self.query_one(OptionList).loading = False
        self.query_one("#preview", Static).update(preview(hits[0] if hits else None))
        self._searched = text
        self.hits = hits
        listing = self.query_one(OptionList)
        listing.set_options(Option(hit_prompt(h), id=str(i)) for i, h in enumerate(hits))
        if not hits:
            listing.add_option(Option(Text("no passage shares these words", style="dim")))
        else:
            listing.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value == self._searched and self.hits:  # a second enter opens the best
            listing = self.query_one(OptionList)
            self.dismiss(self.hits[listing.highlighted or 0])
            return
        self.start_search(event.value)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.query_one("#preview", Static).update(preview(self.hits[int(event.option.id)]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(self.hits[int(event.option.id)])

    def action_to_list(self) -> None:
        """↓ into the results, when there are some: an empty list would take the keys typed
        next and show nothing of them."""
        if not self.hits:
            said = (
                "searching… ↓ once the results are listed"
                if self.query_one(OptionList).loading
                else NO_RESULTS
            )
            self.query_one("#preview", Static).update(Text(said, style="dim"))
            return
        self.query_one(OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        """A letter typed in the results goes on in the words (they were lost)."""
        if isinstance(self.focused, OptionList) and event.is_printable and event.character:
            field = self.query_one(Field)
            field.focus()
            field.insert_text_at_cursor(event.character)
            event.stop()

    def action_cancel(self) -> None:
        self.dismiss(None)

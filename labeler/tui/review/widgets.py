"""The review screen's widgets: the waiting list, a quote in its context, the candidates.

They only draw what the screen hands them (attributes down); the screen owns the store,
the corpus and the decisions. Differences are marked with a text style as well as a
colour, so they still read in a 16-colour terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from labeler.core.anchoring.candidates import AnchorCandidate, Proposal
from labeler.core.anchoring.review import PendingSpan
from labeler.core.display import masked
from labeler.core.values import SpanState
from labeler.tui.review.diff import context_window

Ranges = Iterable[tuple[int, int]]


def span_label(item: PendingSpan) -> Text:
    """One row of the waiting list: state, query, old offset, document (cut to fit)."""
    mark = "✗" if item.state is SpanState.ORPHANED else "~"
    name = PurePosixPath(item.span.doc).stem
    return Text.assemble(f"{mark} ", (item.query_id, "bold"), f" {item.span.start:>5} {name}")


def candidate_label(rank: int, c: AnchorCandidate) -> Text:
    """One candidate with every part of its score, so the person sees why it ranks."""
    p = c.parts
    return Text.assemble(
        (f"{rank} ", "bold"),
        (f"{c.kind:<5} ", "italic" if c.kind == "fuzzy" else ""),
        f"{c.start}–{c.end} ",
        (f"{c.score:.3f} ", "bold"),
        f"q{p.quote:.2f} p{p.prefix:.2f} s{p.suffix:.2f} d{p.distance:.2f}",
    )


class SpanList(ScrollView, can_focus=True):
    """The spans that wait for review, drawn row by row (line API).

    Only the rows on screen are built, so a list of 10,000 spans costs no more to show
    than a list of ten; the screen hands it the list and it keeps a reference.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move_to(0)", "First", show=False),
        Binding("end", "move_to(-1)", "Last", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"span-list--cursor"}
    DEFAULT_CSS = """
    SpanList {
        width: 26; height: 1fr; border: round $panel-lighten-2; background: $surface;
        overflow-x: hidden; scrollbar-size-vertical: 1; padding-left: 1;
    }
    SpanList:focus { border: round $primary; }
    SpanList > .span-list--cursor {
        color: $block-cursor-blurred-foreground; background: $block-cursor-blurred-background;
        text-style: $block-cursor-blurred-text-style;
    }
    SpanList:focus > .span-list--cursor {
        color: $block-cursor-foreground; background: $block-cursor-background;
        text-style: $block-cursor-text-style;
    }
    """

    highlighted: reactive[int | None] = reactive(None)
    """Index of the highlighted span, None when the list is empty."""

    @dataclass
    class Highlighted(Message):
        """The highlight moved to another span."""

        span_list: SpanList
        """The list that posted it."""
        index: int
        """The highlighted row."""

        @property
        def control(self) -> SpanList:
            return self.span_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: Sequence[PendingSpan] = ()
        """The rows, as handed in by the screen."""

    @property
    def row_count(self) -> int:
        return len(self.items)

    def show(self, items: Sequence[PendingSpan]) -> None:
        """Draw `items` (kept by reference); the highlight stays in range."""
        self.items = items
        self.virtual_size = Size(self.size.width, len(items))
        self.border_title = f"waiting {len(items)}"
        if not items:
            self.highlighted = None
        elif self.highlighted is not None and self.highlighted >= len(items):
            self.highlighted = len(items) - 1
        self.refresh()

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= len(self.items):
            return Strip.blank(width, base)
        row = span_label(self.items[index])
        row.truncate(width, overflow="ellipsis", pad=True)
        style = (
            self.get_component_rich_style("span-list--cursor")
            if index == self.highlighted
            else base
        )
        row.stylize_before(style)
        return Strip(row.render(self.app.console, end=""), width)

    def watch_highlighted(self, index: int | None) -> None:
        if index is None:
            return
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if index < top:
            self.scroll_to(y=index, animate=False)
        elif height and index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False)
        self.refresh()
        self.post_message(self.Highlighted(self, index))

    def action_move(self, step: int) -> None:
        self.action_move_to(max(0, (self.highlighted or 0) + step))

    def action_page(self, step: int) -> None:
        self.action_move(step * max(1, self.scrollable_content_region.height - 1))

    def action_move_to(self, index: int) -> None:
        if self.items:
            self.highlighted = min(
                index if index >= 0 else len(self.items) - 1, len(self.items) - 1
            )

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and offset.y + self.scroll_offset.y < len(self.items):
            self.highlighted = offset.y + self.scroll_offset.y

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.items))


class CandidateList(OptionList):
    """The candidates for the selected span, best first."""

    DEFAULT_CSS = """
    CandidateList { height: auto; max-height: 7; border: round $panel-lighten-2; }
    CandidateList:focus { border: round $primary; }
    """

    def show(self, proposal: Proposal | None) -> None:
        self.clear_options()
        if proposal is None:
            self.add_option(Option("finding candidates…", disabled=True))
        elif not proposal.candidates:
            self.add_option(Option("none: o marks the span orphaned", disabled=True))
        else:
            found = enumerate(proposal.candidates, start=1)
            self.add_options(Option(candidate_label(i, c), id=str(i - 1)) for i, c in found)
            self.highlighted = 0
        self.border_title = "candidates"
        self.border_subtitle = "" if proposal is None else proposal.reason


class QuoteView(VerticalScroll):
    """A quote drawn in its context, with the ranges only this side has marked."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "quote-view--quote",
        "quote-view--context",
        "quote-view--removed",
        "quote-view--added",
    }
    DEFAULT_CSS = """
    QuoteView { height: 1fr; border: round $panel-lighten-2; padding: 0 1; }
    QuoteView > .quote-view--quote { background: $span-current; color: $text; }
    QuoteView > .quote-view--context { color: $text-muted; }
    QuoteView > .quote-view--removed { background: $error 60%; text-style: strike bold; }
    QuoteView > .quote-view--added { background: $success 50%; text-style: underline bold; }
    QuoteView Static { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", markup=False)

    def show(self, text: str, start: int, end: int, marks: Ranges = (), *, kind: str = "") -> None:
        """Draw text[start:end] with its context; `marks` are offsets into the quote."""
        self.query_one(Static).update(self._quote_text(text, start, end, marks, kind))
        self.scroll_home(animate=False)

    def clear(self, message: str = "") -> None:
        self.query_one(Static).update(Text(message, style="italic"))
        self.border_title = self.border_subtitle = ""

    def _quote_text(self, text: str, start: int, end: int, marks: Ranges, kind: str) -> Text:
        text = masked(text)  # same length: the marks and the quote stay at their offsets
        lo, hi = context_window(text, start, end)
        context = self._style("context")
        out = Text("…" if lo > 0 else "", style=context)
        out.append(text[lo:start], style=context)
        quote = Text(text[start:end], style=self._style("quote"))
        for s, e in marks:
            quote.stylize(self._style(kind), s, e)
        out.append_text(quote)
        out.append(text[end:hi] + ("…" if hi < len(text) else ""), style=context)
        return out

    def _style(self, role: str) -> Style:
        return (
            self.get_component_rich_style(f"quote-view--{role}", partial=False) if role else Style()
        )


class ConfirmOrphan(ModalScreen[bool]):
    """Asks before a span is deleted; the decision row keeps it, and undo restores it."""

    AUTO_FOCUS = "#no"
    """A stray enter keeps the span: deleting takes a deliberate y."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Orphan it"),
        Binding("n,escape", "answer(False)", "Keep it"),
    ]
    DEFAULT_CSS = """
    ConfirmOrphan { align: center middle; }
    ConfirmOrphan > Grid {
        grid-size: 2; grid-gutter: 1 2; grid-rows: auto 3; width: 60; height: auto;
        border: thick $error; background: $surface; padding: 1 2;
    }
    ConfirmOrphan #question { column-span: 2; }
    ConfirmOrphan Button { width: 100%; }
    """

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question
        """What is about to be orphaned, in words."""

    def compose(self) -> ComposeResult:
        with Grid():
            yield Static(self.question, id="question", markup=False)
            yield Button("Orphan it (y)", variant="error", id="yes")
            yield Button("Keep it (n)", variant="primary", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

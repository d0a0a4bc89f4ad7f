"""Suggested evidence: the sentences most likely to answer the current query, to accept
as a span (`a`) or to look at in the document (enter).

The suggester (a sentence index per corpus, with sentence vectors when the embedder is at
hand) is built in a worker thread the first time and kept by the label screen, so a second
press lists at once. The screen only shows; the label screen adds the span it is handed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
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

from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.suggest import Suggestion
from labeler.core.display import masked

if TYPE_CHECKING:  # the embedder and numpy load on the first `E`, not with the app
    from evaluator.retrieval.suggest import Stop, Suggester, SuggesterCache
    from labeler.core.project.cache_place import CacheWhere

LIMIT = 10
"""Suggestions listed."""
MARK = "bold underline"
"""How a query word is shown inside a suggestion."""
Build = Callable[["Stop"], "Suggester | None"]
"""Builds (or finds) a suggester in the worker thread; None when it was stopped."""


@dataclass(frozen=True)
class Picked:
    """What the person did with a suggestion."""

    suggestion: Suggestion
    """The sentence chosen."""
    accept: bool
    """True: add it as a span; False: only show it in the document."""


def marked(s: Suggestion, *, flat: bool = False) -> Text:
    """The sentence with the query's words marked; `flat` puts it on one line."""
    # Same length (masked, spaces for white space): the marks stay put.
    body = masked(re.sub(r"\s", " ", s.text) if flat else s.text)
    out = Text(body)
    for start, end in s.marks:
        out.stylize(MARK, start - s.start, end - s.start)
    return out


def ranks(s: Suggestion) -> str:
    """`bm25 #2 · emb #5`: where each ranker put it."""
    parts = [f"bm25 #{s.lexical_rank}" if s.lexical_rank else "bm25 -"]
    if s.dense_rank is not None or s.lexical_rank is None:
        parts.append(f"emb #{s.dense_rank}" if s.dense_rank else "emb -")
    return " · ".join(parts)


def suggestion_prompt(n: int, s: Suggestion) -> Text:
    """Rank, score, document and offsets, then the sentence, on one line."""
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(f"{n:>2}. {s.score:>7.4f} ", style="bold")
    line.append(f"{s.doc} {s.start}–{s.end} ", style="dim")
    line.append_text(marked(s, flat=True))
    return line


def preview(s: Suggestion) -> Text:
    """The whole highlighted sentence, wrapped, under the list."""
    out = Text(f"{s.doc} {s.start}–{s.end} · score {s.score:.4f} · {ranks(s)}\n", style="dim")
    out.append_text(marked(s))
    return out


class SuggestScreen(ModalScreen[Picked | None]):
    """The best sentences of the corpus for one query, best first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "pick(True)", "Accept as span"),
        Binding("enter", "pick(False)", "Show in document"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(
        self,
        query_id: str,
        text: str,
        quick: Build,
        full: Build | None = None,
    ) -> None:
        """`quick` ranks at once (lexical); `full`, when given, ranks better once built."""
        super().__init__()
        self._steps = [quick] if full is None else [quick, full]
        self._query = (query_id, text)
        self.suggestions: list[Suggestion] = []
        """What is listed, best first (empty until the suggester is built)."""
        self.note = ""
        """How the list was ranked (lexical + model, or why lexical only)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog search suggest"):
            yield Label(f"Suggested evidence for {self._query[0]}", classes="dialog-title")
            yield Label("building the sentence index…", id="note")
            yield OptionList(id="suggestions")
            yield Static(id="preview")
            yield Label("a: accept as span · enter: show · esc: cancel", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.rank()

    @work(thread=True, exclusive=True, group="suggest")
    def rank(self) -> None:
        worker = get_current_worker()
        for n, step in enumerate(self._steps, 1):
            suggester = step(lambda: worker.is_cancelled)
            if suggester is None or worker.is_cancelled:
                return  # closed (or the app quits) while the sentences were embedded
            found = suggester.suggest(self._query[1], LIMIT)
            note = suggester.note + ("; embedding the sentences…" if n < len(self._steps) else "")
            self.app.call_from_thread(self.show, found, note)

    def show(self, found: list[Suggestion], note: str) -> None:
        if not self.is_mounted:  # dismissed while the embeddings were built
            return
        listing = self.query_one(OptionList)
        looked_at = self._highlighted()
        self.suggestions, self.note = found, note
        self.query_one("#note", Label).update(Text(note, style="dim"))
        listing.set_options(Option(suggestion_prompt(n, s), id=str(n - 1))
                            for n, s in enumerate(found, 1))  # fmt: skip
        if not found:
            listing.add_option(Option(Text("no sentence shares the query's words", style="dim")))
            return
        # The better ranking arrives while the person reads: the highlight stays on the
        # sentence they were looking at, so `a` never accepts one they did not see.
        places = [(f.doc, f.start) for f in found]
        at = places.index(looked_at) if looked_at in places else 0
        listing.highlighted = at
        self.query_one("#preview", Static).update(preview(found[at]))

    def _highlighted(self) -> tuple[str, int] | None:
        at = self.query_one(OptionList).highlighted
        if at is None or at >= len(self.suggestions):
            return None
        return self.suggestions[at].doc, self.suggestions[at].start

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self.query_one("#preview", Static).update(
                preview(self.suggestions[int(event.option.id)])
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_pick(False)

    def action_pick(self, accept: bool) -> None:
        at = self.query_one(OptionList).highlighted
        if at is not None and at < len(self.suggestions):
            self.dismiss(Picked(self.suggestions[at], accept))

    def action_cancel(self) -> None:
        self.dismiss(None)


class Suggestions:
    """The label screen's suggester cache for its corpus, and the screens it opens."""

    def __init__(self, corpus: Corpus, cache: SuggesterCache | None = None) -> None:
        self.corpus = corpus
        """The corpus whose sentences are suggested (the screen sets it when re-read)."""
        self._cache = cache

    @property
    def cache(self) -> SuggesterCache:
        """Indexes and vectors by corpus hash and embedding (built once each)."""
        if self._cache is None:
            from evaluator.retrieval.suggest import SuggesterCache

            self._cache = SuggesterCache()
        return self._cache

    def screen(
        self, query_id: str, text: str, embedding: str | None, cache_path: CacheWhere = None
    ) -> SuggestScreen:
        """A screen for one query: lexical at once, then fused once `embedding` is built;
        sentence vectors are looked up in and added to the cache at `cache_path`."""
        corpus, cache = self.corpus, self.cache
        ready = cache.ready(corpus, embedding)
        if ready is not None:
            return SuggestScreen(query_id, text, lambda stop: ready)
        if embedding is None:
            return SuggestScreen(query_id, text, lambda stop: cache.get(corpus, None, None))

        def full(stop: Stop) -> Suggester | None:
            from evaluator.embedding.vectors import cached_embedder

            return cache.get(corpus, embedding, lambda: cached_embedder(embedding, cache_path),
                             stop)  # fmt: skip

        return SuggestScreen(query_id, text, lambda stop: cache.lexical(corpus), full)

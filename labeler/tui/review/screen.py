"""The review screen (design §8, §11): a person decides where every stale span went.

The screen is handed the store, the corpus and the annotator; every decision is one call
into `labeler.core.anchoring.review`. The waiting list comes from `review.pending` (no candidates),
and candidates for the highlighted span are computed in a thread worker, so the screen
opens at once whatever the number of stale spans.
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.worker import Worker, WorkerState

from labeler.core.anchoring import review
from labeler.core.anchoring.candidates import AnchorCandidate, Proposal, propose
from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown
from labeler.core.errors import SpanlabError
from labeler.core.store import Store
from labeler.core.team.roles import Act, Member
from labeler.core.team.visibility import Sight
from labeler.tui.messages import CorpusChanged, LabelsChanged
from labeler.tui.review.diff import move_end, move_start, quote_diff
from labeler.tui.review.widgets import CandidateList, ConfirmOrphan, QuoteView, SpanList
from labeler.tui.screens.dialogs import ConfirmScreen


class ReviewScreen(Screen[None]):
    """Waiting spans on the left; the old quote above its candidates in the new text."""

    CSS_PATH = "review.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,a", "accept", "Accept", priority=True, key_display="⏎"),
        Binding(
            "left_square_bracket",
            "edge('start', -1)",
            "Edges",
            key_display="[]{}",
            tooltip="Start one word left (] right, { } the end)",
        ),
        Binding(
            "right_square_bracket",
            "edge('start', 1)",
            "Start ▸",
            show=False,
            tooltip="Start one word right",
        ),
        Binding(
            "left_curly_bracket",
            "edge('end', -1)",
            "End ◂",
            show=False,
            tooltip="End one word left",
        ),
        Binding(
            "right_curly_bracket",
            "edge('end', 1)",
            "End ▸",
            show=False,
            tooltip="End one word right",
        ),
        Binding("o", "orphan", "Orphan"),
        Binding(
            "g",
            "keep_copies",
            "Keep copies",
            show=False,
            tooltip="The quote now occurs several times: keep them all as alternatives",
        ),
        Binding("s", "skip", "Skip"),
        Binding("ctrl+z", "undo", "Undo"),
        *(Binding(str(n), f"pick({n - 1})", f"Candidate {n}", show=False) for n in range(1, 6)),
    ]

    def __init__(
        self,
        store: Store,
        corpus: Corpus,
        *,
        annotator: str,
        member: Member | None = None,
        sight: Sight | None = None,
    ) -> None:
        super().__init__()
        self.store = store
        """The label store; only this screen calls into it, through core.review."""
        self.corpus = corpus
        """The corpus folder as it is now."""
        self.annotator = annotator
        """Whose name goes on every decision."""
        self.member = member or Member(annotator, annotator)
        """Their login and team: `[team]` keeps review decisions for leads (§15)."""
        self.sight = sight
        """Whose versions they may see (None: all): blind lists no span of another's
        undecided version to a member who is not a lead (§20)."""
        self.items: list[review.PendingSpan] = []
        """Spans still waiting, in list order."""
        self.proposals: dict[int, Proposal] = {}
        """Candidates found so far, by span id."""
        self.edges: tuple[int, int] | None = None
        """The highlighted candidate's range as adjusted by hand (None: as proposed)."""
        self.done: list[int] = []
        """Decision ids made on this screen, for undo (last first out)."""
        self.shown: int | None = None
        """The span id drawn in the detail panes."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="review-body"):
            yield SpanList(id="review-spans")
            with Vertical(id="review-detail"):
                yield Static(id="review-info", markup=False)
                yield QuoteView(id="review-old")
                yield CandidateList(id="review-candidates")
                yield QuoteView(id="review-new")
        yield Footer()

    def on_mount(self) -> None:
        self._list_waiting()
        self.query_one(SpanList).focus()

    def on_corpus_changed(self, event: CorpusChanged) -> None:
        """The folder changed again: list what waits against the corpus as it is now."""
        self.corpus = event.corpus
        self.proposals.clear()
        self.shown = None
        self._list_waiting()

    def on_labels_changed(self, event: LabelsChanged) -> None:
        """Someone else decided (or brought back) spans: list what waits now, staying on the
        span shown while it still waits, and say when it was decided elsewhere."""
        now = review.pending(self.store, self.corpus, self.sight)
        if [i.span_id for i in now] == [i.span_id for i in self.items]:
            return
        before, self.items = self.current, now
        self.query_one(SpanList).show(self.items)
        ids = [i.span_id for i in now]
        if before is not None and before.span_id in ids:
            self._select(ids.index(before.span_id))
            return
        if before is not None:
            self.notify(f"{before.query_id}: its span in {before.span.doc} was decided by someone "
                        "else", title="Review", timeout=4)  # fmt: skip
        self._select(0)

    def _list_waiting(self) -> None:
        self.items = review.pending(self.store, self.corpus, self.sight)
        self.query_one(SpanList).show(self.items)
        self._select(0)

    # -- what is shown ---------------------------------------------------------------------

    @property
    def current(self) -> review.PendingSpan | None:
        index = self.query_one(SpanList).highlighted
        return None if index is None or index >= len(self.items) else self.items[index]

    @property
    def candidate(self) -> AnchorCandidate | None:
        item, index = self.current, self.query_one(CandidateList).highlighted
        proposal = None if item is None else self.proposals.get(item.span_id)
        if proposal is None or index is None or index >= len(proposal.candidates):
            return None
        return proposal.candidates[index]

    @property
    def chosen(self) -> tuple[int, int] | None:
        """The range `accept` would write: the adjusted edges, else the candidate's."""
        c = self.candidate
        return self.edges if self.edges is not None else None if c is None else (c.start, c.end)

    def _select(self, index: int) -> None:
        spans = self.query_one(SpanList)
        for part in ("#review-candidates", "#review-new"):
            self.query_one(part).display = bool(self.items)
        if not self.items:
            self._show_empty()
            return
        spans.highlighted = max(0, min(index, len(self.items) - 1))
        self._show_span()

    @on(SpanList.Highlighted)
    def _span_highlighted(self) -> None:
        item = self.current
        if item is not None and item.span_id != self.shown:
            self._show_span()

    @on(OptionList.OptionHighlighted, "#review-candidates")
    def _candidate_highlighted(self) -> None:
        self.edges = None
        self._show_candidate()

    def _show_span(self) -> None:
        item = self.current
        if item is None:
            return
        self.shown, self.edges = item.span_id, None
        s = item.span
        self.query_one("#review-info", Static).update(
            Text.assemble(
                (item.query_id, "bold"), f"  {s.doc}  ", (item.state.value, "italic"), "\n",
                shown(item.question),
            )
        )  # fmt: skip
        proposal = self.proposals.get(item.span_id)
        self.query_one(CandidateList).show(proposal)
        if proposal is None:
            self.run_worker(
                partial(propose, s, item.old_text, item.new_text),
                name=str(item.span_id),
                group="anchoring",
                thread=True,
                exclusive=True,
            )
        self._show_candidate()

    def _show_candidate(self) -> None:
        item, chosen = self.current, self.chosen
        if item is None:
            return
        old_view, new_view = (
            self.query_one("#review-old", QuoteView),
            self.query_one("#review-new", QuoteView),
        )
        old_text, start = self._old_context(item)
        if chosen is None or item.new_text is None:
            old_view.show(old_text, start, start + len(item.span.quote))
            new_view.clear(self._no_candidate(item))
            new_view.border_title = "new"
        else:
            new_quote = item.new_text[chosen[0] : chosen[1]]
            diff = quote_diff(item.span.quote, new_quote)
            old_view.show(
                old_text, start, start + len(item.span.quote), diff.removed, kind="removed"
            )
            new_view.show(item.new_text, *chosen, diff.added, kind="added")
            adjusted = "  adjusted" if self.edges is not None else ""
            new_view.border_title = f"new  {chosen[0]}–{chosen[1]}{adjusted}"
            new_view.border_subtitle = "[ ] start  { } end"
        old_view.border_title = f"old  {item.span.start}–{item.span.end}"

    def _old_context(self, item: review.PendingSpan) -> tuple[str, int]:
        """The old text and the quote's start in it (the span's own context if not kept)."""
        if item.old_text is not None:
            return item.old_text, item.span.start
        s = item.span
        return s.prefix + s.quote + s.suffix, len(s.prefix)

    def _no_candidate(self, item: review.PendingSpan) -> str:
        proposal = self.proposals.get(item.span_id)
        if proposal is None:
            return "finding candidates…"
        return "Nothing in the new text resembles the old quote."

    def _show_empty(self) -> None:
        self.query_one("#review-info", Static).update(Text("Nothing waits for review.", "bold"))
        bound = self.store.corpus_hash
        now = " (the corpus as it is now)" if bound == self.corpus.hash else ""
        summary = review.summary(self.store, self.corpus).describe()
        self.query_one("#review-old", QuoteView).clear(
            f"{summary.capitalize()}. The labels are bound to {bound}{now}; "
            "`spanlab labels export` writes them."
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group != "anchoring" or event.state is not WorkerState.SUCCESS:
            return
        assert isinstance(worker.result, Proposal)
        self.proposals[int(worker.name)] = worker.result
        item = self.current
        if item is not None and item.span_id == int(worker.name):
            self.query_one(CandidateList).show(worker.result)
            self._show_candidate()

    # -- decisions ---------------------------------------------------------------------------

    def action_accept(self) -> None:
        item, chosen = self.current, self.chosen
        if item is None or chosen is None:
            self.notify("No candidate to accept: o marks the span orphaned.", severity="warning")
            return
        self._decide(item, partial(review.accept, self.store, self.corpus, item.span_id, *chosen))

    def action_orphan(self) -> None:
        item = self.current
        if item is None:
            return
        question = (
            f"Mark the span of {item.query_id} in {item.span.doc} orphaned? It is deleted; "
            f"the decision keeps its offsets and quote, and ctrl+z brings it back.\n\n"
            f"“{shown(item.span.quote[:120])}”"
        )

        def answered(yes: bool | None) -> None:
            if yes:
                orphan = partial(review.orphan, self.store, self.corpus, item.span_id)
                self._decide(item, orphan)

        self.app.push_screen(ConfirmOrphan(question), answered)

    def action_keep_copies(self) -> None:
        """`g`: every copy of the quote becomes an alternative (§18), once the person says yes."""
        item = self.current
        proposal = None if item is None else self.proposals.get(item.span_id)
        places = [] if item is None or proposal is None else review.copies(item, proposal)
        if item is None or len(places) < 2:
            self.notify("The quote does not occur twice: accept a candidate (⏎) instead.",
                        severity="warning")  # fmt: skip
            return
        at = ", ".join(f"{a}..{b}" for a, b in places)
        question = (f"Keep the {len(places)} copies of the quote in {shown(item.span.doc)} "
                    f"({at}) as alternatives, either of which will do?")  # fmt: skip
        keep = partial(review.accept_alternatives, self.store, self.corpus, item.span_id, places)

        def answered(yes: bool | None) -> None:
            if yes:
                self._decide(item, keep)

        self.app.push_screen(ConfirmScreen(question), answered)

    def _refused(self) -> bool:
        """Say so and return True when `[team]` keeps review decisions from this member."""
        why = self.member.refusal(Act.REVIEW)
        if why is not None:
            self.notify(why, title="Not saved", severity="error")
        return why is not None

    def _decide(self, item: review.PendingSpan, decide: partial[review.Outcome]) -> None:
        if self._refused():
            return
        try:
            outcome = decide(annotator=self.annotator)
        except SpanlabError as exc:
            self.notify(str(exc), title="Not saved", severity="error")
            return
        self.done.append(outcome.decision.id)
        index = next(i for i, x in enumerate(self.items) if x.span_id == item.span_id)
        del self.items[index]
        self.query_one(SpanList).show(self.items)
        # The list's "waiting N" is the feedback; a toast per decision would cover the text.
        if outcome.rebound:
            self.notify(f"Every span is resolved: labels are bound to {self.corpus.hash}")
        self._select(index)

    def action_undo(self) -> None:
        if not self.done:
            self.notify("Nothing to undo on this screen.", severity="warning")
            return
        try:
            outcome = review.undo(self.store, self.corpus, self.done[-1], annotator=self.annotator)
        except SpanlabError as exc:
            self.notify(str(exc), title="Not undone", severity="error")
            return
        self.done.pop()
        self.items = review.pending(self.store, self.corpus, self.sight)
        self.query_one(SpanList).show(self.items)
        ids = [i.span_id for i in self.items]
        self.notify(f"Undone: {outcome.decision.query_id} waits again", timeout=3)
        self._select(ids.index(outcome.decision.span_id) if outcome.decision.span_id in ids else 0)

    def action_skip(self) -> None:
        index = self.query_one(SpanList).highlighted
        if self.items and index is not None:
            self._select((index + 1) % len(self.items))

    def action_pick(self, index: int) -> None:
        candidates = self.query_one(CandidateList)
        if index < candidates.option_count and not candidates.get_option_at_index(index).disabled:
            candidates.highlighted = index

    def action_edge(self, side: str, step: int) -> None:
        item, chosen = self.current, self.chosen
        if item is None or chosen is None or item.new_text is None:
            self.app.bell()
            return
        start, end = chosen
        if side == "start":
            start = move_start(item.new_text, start, end, step)
        else:
            end = move_end(item.new_text, start, end, step)
        c = self.candidate
        self.edges = None if c is not None and (c.start, c.end) == (start, end) else (start, end)
        self._show_candidate()

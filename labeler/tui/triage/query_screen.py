"""One gained or lost query: its evidence with both cut sets, verdicts and both rankings.

The detail (re-cutting the evidence documents, matching chunks to spans) runs in a
thread worker, so the screen opens at once even when a tokenizer has to load; `n`/`p`
walk the list the triage screen showed, so a reviewer goes through every loss in order.
`z` hides the verdicts and ranked lists with a class: `maximize` refuses scroll containers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState

from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown as safe
from labeler.core.errors import SpanlabError
from labeler.tui.messages import CorpusChanged
from labeler.tui.triage.answer_screen import AnswerScreen
from labeler.tui.triage.detail import QueryDetail, query_detail
from labeler.tui.triage.messages import LabelRequested
from labeler.tui.triage.model import RunView
from labeler.tui.triage.render import (
    BASELINE,
    BASELINE_MARK,
    CANDIDATE,
    CANDIDATE_MARK,
    detail_content,
    evidence_start,
    fates_content,
    legend,
    ranked_content,
)
from labeler.tui.triage.walking import WALK, WalkingScreen
from labeler.tui.widgets.document_view import alternatives_in

STATUS_STYLE = {"lost": "bold $error", "gained": "bold $success"}
RANKED_TITLE = " · rank score chunk ev"
"""Names the ranked lists' columns after the candidate's name."""
NO_VIEW = "no boundary view: the run was made on another corpus (see above)"
"""Where the boundary view would be; the ranked lists beside it need no text."""
"""`n p` share one footer hint, so `^q Quit` and `? Keys` fit in 80 columns."""


class QueryScreen(WalkingScreen):
    """Evidence in context with baseline and candidate cuts, and both top-k lists."""

    CSS_PATH = "triage.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("n", "step(1)", "Next query", group=WALK),
        Binding("p", "step(-1)", "Previous query", group=WALK),
        Binding("e", "label", "Fix label"),
        Binding("a", "answer", "Answer"),
        Binding("z", "zoom", "Zoom text"),
        Binding("z", "unzoom", "Unzoom"),
    ]

    zoomed: reactive[bool] = reactive(False)
    """Whether the text has the whole height, the verdicts and ranked lists hidden."""

    def __init__(self, run: RunView, candidate: str, corpus: Corpus, queries: Sequence[str],
                 index: int, *, texts: Mapping[str, str] | None = None) -> None:  # fmt: skip
        super().__init__(run, candidate, corpus, queries, index, texts=texts)
        self.detail: QueryDetail | None = None
        """What is shown, once the worker has built it."""

    def compose(self) -> ComposeResult:
        yield Static(id="q-head")
        with VerticalScroll(id="q-fates"):
            yield Static(id="q-fates-text")
        yield Static(legend(self.run.baseline, self.candidate), id="q-legend")
        with VerticalScroll(id="q-boundary"):
            yield Static(id="q-boundary-text")
        with Horizontal(id="q-ranked"):
            with VerticalScroll(id="q-base"):
                yield Static(id="q-base-text")
            with VerticalScroll(id="q-cand"):
                yield Static(id="q-cand-text")
        yield Footer()

    def on_mount(self) -> None:
        self.load()
        self.query_one("#q-boundary").focus()

    def on_corpus_changed(self, event: CorpusChanged) -> None:
        """The corpus folder changed: draw again, so the boundary view comes back (or goes)
        as this query's documents match the run (or stop matching)."""
        self.corpus = event.corpus
        self.load()

    def load(self) -> None:
        self.detail = None
        self._set("#q-head", Content.assemble((self.query_id, "bold"), " …"))
        self._set(
            "#q-fates-text", Content.styled("re-cutting the evidence documents…", "$text-muted")
        )
        self.build(self.query_id)

    @work(thread=True, exclusive=True, group="query-detail", exit_on_error=False)
    def build(self, query: str) -> QueryDetail:
        return query_detail(self.run, query, self.candidate, self.corpus, self.texts)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "query-detail":
            return
        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, QueryDetail):
            if event.worker.result.query == self.query_id:
                self.show(event.worker.result)
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            message = str(error) if isinstance(error, SpanlabError) else repr(error)
            self._set("#q-fates-text", Content.styled(message, "bold $error"))

    def show(self, detail: QueryDetail) -> None:
        self.detail = detail
        run = self.run
        self._set("#q-head", self._head(detail))
        either = bool(alternatives_in(detail.spans))
        self._set("#q-legend", legend(run.baseline, self.candidate, alternatives=either))
        fates = fates_content(detail, run.k, run.threshold, run.rules(run.baseline),
                              run.rules(self.candidate))  # fmt: skip
        if detail.note is not None:
            # Another corpus: no cuts to draw over this text, but the ranked lists stand.
            note = Content.styled(detail.note, "bold $error")
            self._set("#q-fates-text", Content("\n").join([note, fates]))
            self._set("#q-boundary-text", Content.styled(NO_VIEW, "$text-muted"))
        else:
            self._set("#q-fates-text", fates)
            boundary = detail_content(detail, self.corpus.text)
            self._set("#q-boundary-text", boundary)
            self.call_after_refresh(self._scroll_to_evidence, boundary)
        for pane, mark, style, side in (("#q-base-text", BASELINE_MARK, BASELINE, detail.baseline),
                                        ("#q-cand-text", CANDIDATE_MARK, CANDIDATE,
                                         detail.candidate)):  # fmt: skip
            title = Content.assemble((f"{mark} {safe(side.name)}", style),
                                     (RANKED_TITLE, "$text-muted"))  # fmt: skip
            self._set(pane, Content("\n").join([title, ranked_content(side, run.k, run.depth)]))

    def _scroll_to_evidence(self, boundary: Content) -> None:
        """Put the line where the evidence starts second from the top: the cuts are there."""
        start = evidence_start(boundary)
        width = self.query_one("#q-boundary-text").content_region.width
        if start is None or width <= 0:
            return
        line = len(boundary[:start].wrap(width)) - 1
        self.query_one("#q-boundary", VerticalScroll).scroll_to(y=max(0, line - 1), animate=False)

    def _head(self, detail: QueryDetail) -> Content:
        status = detail.status or "abstention"
        cause = f" ({detail.cause})" if detail.cause else ""
        where = f"{self.index + 1}/{len(self.queries)}"
        slices = safe(", ".join(detail.slices), lines=False) or "no slice"
        head = Content.assemble(
            (detail.query, "bold"), " ", (status + cause, STATUS_STYLE.get(status, "bold")),
            f" · {detail.boundary} · {slices} · ",
            (where, "$text-muted"),
        )  # fmt: skip
        if detail.text:
            head = Content("\n").join([head, Content.styled(f"“{safe(detail.text)}”", "italic")])
        return head

    def _set(self, selector: str, content: Content) -> None:
        self.query_one(selector, Static).update(content)

    def action_label(self) -> None:
        self.post_message(LabelRequested(self.query_id))

    def action_answer(self) -> None:
        """The query's answer beside its context (§23), for a run that asked a generator."""
        self.app.push_screen(AnswerScreen(self.run, self.candidate, self.corpus, self.queries,
                                          self.index, texts=self.texts))  # fmt: skip

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # One `z` key, two footer hints: the one that applies now.
        if action in ("zoom", "unzoom"):
            return self.zoomed == (action == "unzoom")
        if action == "answer":
            return self.run.file.generation is not None
        return True

    def watch_zoomed(self, zoomed: bool) -> None:
        self.set_class(zoomed, "-zoomed")
        self.refresh_bindings()

    def action_zoom(self) -> None:
        self.zoomed = True
        # A ranked list with the focus is about to be hidden: the text takes the keys.
        self.query_one("#q-boundary").focus()

    def action_unzoom(self) -> None:
        self.zoomed = False

"""One query's answer beside its context (§23): the answer with its citations drawn, each
check's value, the labelled facts stated or not, and the numbered sources as sent.

Opened from the query screen (`a`); `b` shows the baseline's answer to the same query and
back, `n`/`p` walk the same list. generation.jsonl is read once per run in a thread worker,
so a large file never blocks the keys. Two scroll panes, so 80×24 shows both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState

from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown as safe
from labeler.core.errors import SpanlabError
from labeler.tui.triage.answer_model import AnswerView, answer_view
from labeler.tui.triage.answer_render import body_content, sources_content
from labeler.tui.triage.model import RunView
from labeler.tui.triage.render import BASELINE, CANDIDATE
from labeler.tui.triage.walking import WALK, WalkingScreen


class AnswerScreen(WalkingScreen):
    """The answer of one query through one candidate (or the baseline), and its context."""

    CSS_PATH = "triage.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("n", "step(1)", "Next query", group=WALK),
        Binding("p", "step(-1)", "Previous query", group=WALK),
        Binding("b", "side", "Baseline/candidate"),
    ]

    def __init__(self, run: RunView, candidate: str, corpus: Corpus, queries: Sequence[str],
                 index: int, *, texts: Mapping[str, str] | None = None) -> None:  # fmt: skip
        super().__init__(run, candidate, corpus, queries, index, texts=texts)
        self.side = candidate
        """Whose answer is shown: the candidate's, or the baseline's (`b`)."""
        self.view: AnswerView | None = None
        """What is shown, once the worker has built it."""

    def compose(self) -> ComposeResult:
        yield Static(id="a-head")
        with VerticalScroll(id="a-body"):
            yield Static(id="a-body-text")
        with VerticalScroll(id="a-sources"):
            yield Static(id="a-sources-text")
        yield Footer()

    def on_mount(self) -> None:
        self.load()
        self.query_one("#a-body").focus()

    def load(self) -> None:
        self.view = None
        self._set("#a-head", Content.assemble((self.query_id, "bold"), " …"))
        self._set("#a-body-text", Content.styled("reading the answers…", "$text-muted"))
        self._set("#a-sources-text", Content(""))
        self.build(self.query_id, self.side)

    @work(thread=True, exclusive=True, group="answer-view", exit_on_error=False)
    def build(self, query: str, side: str) -> AnswerView:
        return answer_view(self.run, self.run.answers(), query, side, self.corpus, self.texts)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "answer-view":
            return
        found = event.worker.result
        if event.state == WorkerState.SUCCESS and isinstance(found, AnswerView):
            if (found.query, found.candidate) == (self.query_id, self.side):
                self.show(found)
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            message = str(error) if isinstance(error, SpanlabError) else repr(error)
            self._set("#a-body-text", Content.styled(safe(message), "bold $error"))

    def show(self, view: AnswerView) -> None:
        self.view = view
        self._set("#a-head", self._head(view))
        self._set("#a-body-text", body_content(view))
        self._set("#a-sources-text", sources_content(view))
        for pane in ("#a-body", "#a-sources"):
            self.query_one(pane, VerticalScroll).scroll_home(animate=False)

    def _head(self, view: AnswerView) -> Content:
        base = self.side == self.run.baseline
        name = (safe(self.side, lines=False), BASELINE if base else CANDIDATE)
        who = ("baseline " if base else "candidate ", name)
        where = f" · {self.index + 1}/{len(self.queries)}"
        head = Content.assemble((view.query, "bold"), " answered through ", *who,
                                (where, "$text-muted"))  # fmt: skip
        if view.text:
            head = Content("\n").join([head, Content.styled(f"“{safe(view.text)}”", "italic")])
        return head

    def _set(self, selector: str, content: Content) -> None:
        self.query_one(selector, Static).update(content)

    def action_side(self) -> None:
        self.side = self.run.baseline if self.side == self.candidate else self.candidate
        self.load()

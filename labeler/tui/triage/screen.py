"""The triage screen (design §11): which candidate gained and lost what against the baseline.

It is handed the runs folder and the corpus; it reads runs through `evaluator.runs.index`
and run.json, and sets what its widgets show. Four tabs fit an 80×24 terminal: the
summary (metrics with deltas and the paired statistics), the gained/lost queries, the
frontier plot and the runs. Enter on a query opens the query screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, Static, TabbedContent, TabPane, Tabs

from evaluator.metrics.compare import StatusCounts
from evaluator.runs.budget_text import basis_name, flag
from evaluator.runs.diff import RunDiff
from evaluator.runs.index import RunEntry, list_runs
from evaluator.runs.model import RunFile, read_run
from evaluator.runs.verdict_words import settings_line
from labeler.core.corpus.folder import Corpus
from labeler.core.display import shown as safe
from labeler.core.errors import SpanlabError
from labeler.core.team.visibility import BLIND_WHY
from labeler.tui.messages import CorpusChanged
from labeler.tui.settings import Field
from labeler.tui.triage.answer_screen import AnswerScreen
from labeler.tui.triage.change_filter import CAUSE_WORDS, ChangeFilter, count_line
from labeler.tui.triage.detail import warm_tokenizers
from labeler.tui.triage.diff_model import DiffView
from labeler.tui.triage.messages import LabelRequested
from labeler.tui.triage.model import ChangeRow, RunView
from labeler.tui.triage.plot import FrontierView
from labeler.tui.triage.query_screen import QueryScreen
from labeler.tui.triage.widgets import (
    CandidateList,
    ChangeList,
    GatesPanel,
    MetricsTable,
    OtherRulePanel,
    RunList,
    SignificancePanel,
)

PLACEHOLDER = "/ to filter — e.g. both-miss, abstain, split, slice:NAME, p:cond, words"
"""Says how to filter, so an empty field does not read as a filter already typed."""
TABS = ("summary", "queries", "frontier", "runs")
WARM_AFTER = 0.5
"""Seconds after a run opens before its tokenizers load in a thread."""


class TriageScreen(Screen[None]):
    """Runs and candidates; metrics with deltas; gained and lost queries; the frontier."""

    CSS_PATH = "triage.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"tab('{t}')", t.title(), show=False) for n, t in enumerate(TABS, 1)),
        Binding("c", "cycle(1)", "Candidate"),
        Binding("C", "cycle(-1)", "Previous candidate", show=False),
        Binding("slash", "filter", "Filter"),
        Binding("escape", "leave_filter", "Filter: back to the list (enter too)", show=False),
        Binding("e", "label", "Fix label"),
        Binding("a", "answer", "Answer"),
    ]

    def __init__(self, runs_dir: Path, corpus: Corpus, *, run_id: str | None = None,
                 texts: Mapping[str, str] | None = None,
                 label_set_hash: str | None = None,
                 diff: RunDiff | None = None,
                 hidden: Callable[[], frozenset[str]] | None = None) -> None:  # fmt: skip
        super().__init__()
        self.hidden = hidden or frozenset
        """The queries holding another's undecided version now, asked at every listing:
        blind keeps their evidence in a run from a member who is not a lead (§20)."""
        self.diff = diff
        """A run-against-run comparison to triage instead of one run (§16), or None."""
        self.label_set_hash = label_set_hash
        """The store's label set now (None: unknown), to say when a run's labels moved."""
        self.runs_dir = runs_dir
        """Where the run folders are (`.spanlab/runs`)."""
        self.corpus = corpus
        """The corpus as it is now, for the query screen's boundary view."""
        self.texts = dict(texts or {})
        """Query texts by id, when the caller has them (run.json holds none by default)."""
        self.runs: list[RunEntry] = []
        """Every run, newest first."""
        self.run: RunView | None = None
        """The open run."""
        self.candidate: str | None = None
        """The candidate compared with the baseline."""
        self.rows: list[ChangeRow] = []
        """Its gained and lost queries as the filter shows them."""
        self.filter = ChangeFilter()
        """The gained/lost filter."""
        self._wanted = run_id

    def compose(self) -> ComposeResult:
        yield Static(id="triage-head")
        with TabbedContent(id="triage-tabs"):
            with TabPane("1 Summary", id="summary"), Horizontal():
                with Vertical(id="summary-left"):
                    yield CandidateList(id="candidates")
                    yield GatesPanel(id="gates")
                    yield OtherRulePanel(id="other-rule")
                with Vertical(id="summary-right"):
                    yield MetricsTable(id="metrics")
                    yield SignificancePanel(id="significance")
            with TabPane("2 Queries", id="queries"):
                yield Field(placeholder=PLACEHOLDER, id="change-filter")
                yield Static(id="change-count")
                yield ChangeList(id="changes")
            with TabPane("3 Frontier", id="frontier"):
                yield FrontierView(id="frontier-view")
            with TabPane("4 Runs", id="runs"):
                yield RunList(id="run-list")
                yield Static(id="run-settings")
        yield Footer()

    def on_mount(self) -> None:
        self.runs = list_runs(self.runs_dir)
        if self.diff is not None:
            self.open_view(DiffView(self.diff), self.diff.b.id)
            self.query_one(CandidateList).focus()
            return
        wanted = self._wanted or (self.runs[0].id if self.runs else None)
        entry = next((r for r in self.runs if r.id == wanted), None)
        if entry is None:
            self._head(Content.styled(f"no run {wanted or ''} in {self.runs_dir}", "bold $error"))
            return
        self.open_run(entry)
        self.query_one(CandidateList).focus()

    # -- what is shown ---------------------------------------------------------------------

    def open_run(self, entry: RunEntry) -> None:
        """Say the run is loading, paint that, then read it: a big run takes seconds."""
        self._head(Content.styled(f"loading run {safe(entry.id)} …", "italic $text-muted"))
        self._read_run(entry)

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _read_run(self, entry: RunEntry) -> None:
        """In a thread, so the loading line is painted and the keys answer meanwhile (at the
        app's start the loop reached no frame before a read on it was done: seconds blank)."""
        try:
            view = RunView(read_run(entry.folder), entry.folder)
        except SpanlabError as exc:
            self.app.call_from_thread(self._unread, entry, exc)
            return
        self.app.call_from_thread(self.open_view, view, entry.id)

    def _unread(self, entry: RunEntry, exc: SpanlabError) -> None:
        self.notify(safe(str(exc)), severity="error", markup=False)  # a key may hold `[`
        if self.run is None:
            self._head(Content.styled(f"run {safe(entry.id)} could not be read", "bold $error"))
        else:
            self.show_candidate()  # the run open before stays, and says so again

    def open_view(self, view: RunView, run_id: str) -> None:
        self.run = view
        self.query_one(RunList).show(self.runs, run_id)
        self.candidate = self.run.others[0] if self.run.others else None
        self.query_one(CandidateList).show(self.run, self.candidate)
        self.show_candidate()
        # After the reviewer has the summary: loading a tokenizer holds the GIL for seconds.
        self.set_timer(WARM_AFTER, partial(self.warm, self.run))

    @work(thread=True, group="warm", exit_on_error=False)
    def warm(self, run: RunView) -> None:
        warm_tokenizers(run)

    def on_corpus_changed(self, event: CorpusChanged) -> None:
        """The corpus folder changed: say again whether it is the one the run measured."""
        self.corpus = event.corpus
        self.show_candidate()

    def show_candidate(self) -> None:
        run, name = self.run, self.candidate
        if run is None:
            return
        self.query_one(FrontierView).show(run, name)
        if name is None:
            self._head(
                Content(f"run {run.id}: only the baseline {run.baseline}, nothing to compare")
            )
            return
        self.query_one(MetricsTable).show(run.metric_lines(name), run.columns)
        self.query_one(SignificancePanel).show(run, name)
        self.query_one(GatesPanel).show(run, name)
        self.query_one(OtherRulePanel).show(run, name)
        counts = run.comparison(name).overall.counts
        if isinstance(run, DiffView):
            self._head(_diff_head(run, name, counts))
            self.query_one(GatesPanel).update("\n".join(run.difference_lines()))
            other = run.other_rule_line()
            if other is not None:
                self.query_one(OtherRulePanel).update(other)
            self.show_changes()
            return
        self._head(Content.assemble(
            (run.id, "bold"), " run ", _verdict(run.file.passed), " · ",
            (safe(name), "bold $boundary-candidate"), " ", _verdict(run.file.passed_for(name)),
            " vs ", (safe(run.baseline), "bold $boundary-baseline"),
            "\n", *_tallies(run.file, name)[1:], *_flagged(run.file, name),
            "\n", *self._moved(run), (settings_line(run.file), "$text-muted"),
        ))  # fmt: skip
        self.show_changes()

    def show_changes(self) -> None:
        if self.run is None or self.candidate is None:
            return
        found, hidden = self.run.changes(self.candidate, self.texts), self.hidden()
        every = [r for r in found if r.query not in hidden]
        self.rows = self.filter.apply(every)
        listed = self.query_one(ChangeList)
        listed.show(self.rows, listed.current_id)
        unknown = self.filter.unknown(every)
        if unknown is not None:
            self.query_one("#change-count", Static).update(Content.styled(unknown, "$error"))
            return
        total = "" if self.filter == ChangeFilter() else f" (of {len(every)})"
        only = f" · * lost under {self.run.file.match} only" if any(
            r.declared_only for r in self.rows) else ""  # fmt: skip
        gone = len(found) - len(every)
        left = f" · {gone} left out: {BLIND_WHY}" if gone else ""
        self.query_one("#change-count", Static).update(
            f"{count_line(self.rows, basis_name(self.run.file, 'k'), total)} · critical first; "
            + ", ".join(CAUSE_WORDS)
            + only
            + left
        )

    def _moved(self, run: RunView) -> list[tuple[str, str]]:
        """`corpus moved since this run · ` when the corpus folder is not the one measured;
        `labels moved` when the store's label set is not the one measured."""
        moved = []
        if run.file.manifest.corpus_hash != self.corpus.hash:
            moved.append("corpus")
        labels = self.label_set_hash
        if labels is not None and run.file.manifest.label_set_hash != labels:
            moved.append("labels")
        if not moved:
            return []
        return [(f"{' and '.join(moved)} moved since this run", "bold $error"), (" · ", "")]

    def _head(self, content: Content) -> None:
        self.query_one("#triage-head", Static).update(content)

    # -- what the widgets and keys ask for -------------------------------------------------

    @on(OptionList.OptionHighlighted, "#candidates")
    def candidate_chosen(self, event: OptionList.OptionHighlighted) -> None:
        name = event.option.id
        if name is not None and name != self.candidate and not event.option.disabled:
            self.candidate = name
            self.show_candidate()

    @on(OptionList.OptionSelected, "#candidates")
    def candidate_opened(self) -> None:
        self.action_tab("queries")

    @on(OptionList.OptionHighlighted, "#run-list")
    def run_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Under the list: the highlighted run's settings and whether its corpus moved."""
        entry = next((r for r in self.runs if r.id == event.option.id), None)
        if entry is None:
            return
        try:  # the open run is read already: reading it again doubled the wait (issue 45)
            open_file = self.run.file if isinstance(self.run, RunView) else None
            file = open_file if open_file and open_file.id == entry.id else read_run(entry.folder)
        except SpanlabError as exc:
            self.query_one("#run-settings", Static).update(Content.styled(safe(str(exc)), "$error"))
            return
        moved = self._moved(RunView(file))
        self.query_one("#run-settings", Static).update(Content.assemble(
            (f"{file.id}  ", "bold"), *moved, settings_line(file),
        ))  # fmt: skip

    @on(OptionList.OptionSelected, "#run-list")
    def run_chosen(self, event: OptionList.OptionSelected) -> None:
        entry = next((r for r in self.runs if r.id == event.option.id), None)
        if entry is not None:
            self.open_run(entry)
            self.action_tab("summary")

    @on(Input.Changed, "#change-filter")
    def filter_typed(self, event: Input.Changed) -> None:
        try:
            self.filter = ChangeFilter.parse(event.value)
        except SpanlabError as exc:
            self.query_one("#change-count", Static).update(Content.styled(exc.message, "$error"))
            return
        self.show_changes()

    @on(Input.Submitted, "#change-filter")
    def filter_done(self) -> None:
        self.action_leave_filter()

    @on(OptionList.OptionSelected, "#changes")
    def change_opened(self, event: OptionList.OptionSelected) -> None:
        if self.run is None or self.candidate is None or event.option.id is None:
            return
        ids = [r.query for r in self.rows]
        self.app.push_screen(QueryScreen(self.run, self.candidate, self.corpus, ids,
                                         ids.index(event.option.id), texts=self.texts))  # fmt: skip

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "label":
            return self.query_one(TabbedContent).active == "queries"
        if action == "answer":  # a run that asked a generator (§23): the list's answers
            queries = self.query_one(TabbedContent).active == "queries"
            return queries and self.run is not None and self.run.file.generation is not None
        if action == "leave_filter":
            return self.query_one("#change-filter", Field).has_focus
        return True

    @on(TabbedContent.TabActivated)
    def tab_shown(self) -> None:
        self.refresh_bindings()

    def action_tab(self, tab: str) -> None:
        # Focus must move into the new tab: TabbedContent follows focus back to the old one.
        tabs = self.query_one(TabbedContent)
        tabs.active = tab
        focus = {"summary": "#candidates", "queries": "#changes", "runs": "#run-list"}
        (self.query_one(focus[tab]) if tab in focus else tabs.query_one(Tabs)).focus()

    def action_cycle(self, step: int) -> None:
        if self.run is None or not self.run.others:
            return
        names = self.run.others
        at = names.index(self.candidate) if self.candidate in names else -step
        self.candidate = names[(at + step) % len(names)]
        self.query_one(CandidateList).show(self.run, self.candidate)
        self.show_candidate()

    def action_filter(self) -> None:
        self.action_tab("queries")
        self.query_one("#change-filter", Field).focus()

    def action_leave_filter(self) -> None:
        """The filter keeps what was typed; the keys go back to the list it filters."""
        self.query_one(ChangeList).focus()

    def action_answer(self) -> None:
        """The highlighted query's answer (an abstention query's above all, whose row has no
        boundary to show), `n`/`p` walking the list as from the query screen."""
        query = self.query_one(ChangeList).current_id
        if self.run is None or self.candidate is None or query is None:
            return
        ids = [r.query for r in self.rows]
        self.app.push_screen(AnswerScreen(self.run, self.candidate, self.corpus, ids,
                                          ids.index(query), texts=self.texts))  # fmt: skip

    def action_label(self) -> None:
        query = self.query_one(ChangeList).current_id
        if self.query_one(TabbedContent).active == "queries" and query is not None:
            self.post_message(LabelRequested(query))


def _diff_head(run: DiffView, name: str, counts: StatusCounts) -> Content:
    return Content.assemble(
        (safe(name), "bold $boundary-candidate"), " vs ",
        (safe(run.baseline), "bold $boundary-baseline"),
        " · ", (f"▲{counts.gained}", "$success"), " ", (f"▼{counts.lost}", "$error"),
        f" · {run.scope()}\n", (safe(run.head()), "$text-muted"),
    )  # fmt: skip


def _tallies(file: RunFile, name: str) -> list[str | tuple[str, str]]:
    """` · ▲3 ▼15 at k = 5 · ▲2 ▼14 at budget 608`: gained and lost on each basis the run
    holds, each named (the gates panel counts at the deciding one). The head gives them a
    line of their own: beside the verdicts they were cut at 80 columns (issue 45)."""
    found: list[str | tuple[str, str]] = []
    for basis, comps in (("k", file.comparisons), ("budget", file.budget_comparisons)):
        if name not in comps or (basis == "budget" and file.budget is None):
            continue
        counts = comps[name].overall.counts
        said = f" at {basis_name(file, basis)}" if file.budget is not None else ""
        found += [" · ", (f"▲{counts.gained}", "$success"), " ",
                  (f"▼{counts.lost}", "$error"), said]  # fmt: skip
    return found


def _flagged(file: RunFile, name: str) -> list[tuple[str, str]]:
    """` (flag: PASS at budget 608)` — the verdict on the basis that does not decide — for a
    candidate whose verdict differs between k and budget (§17); nothing otherwise."""
    if flag(file, name) is None:
        return []
    other = "k" if file.decide == "budget" else "budget"
    verdict = "PASS" if file.passed_on(name, other) else "FAIL"
    return [(f" (flag: {verdict} at {basis_name(file, other)})", "$warning")]


def _verdict(passed: bool) -> tuple[str, str]:
    return ("PASS", "$success") if passed else ("FAIL", "bold $error")

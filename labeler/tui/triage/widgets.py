"""The triage screen's lists and panels: each shows what the screen hands it, nothing more.

Lists are `OptionList`s whose option ids are run ids, candidate names or query ids, so
the screen hears the choice through the list's own messages. Text is `Content` styled by
theme roles (`$error`, `$success`, `$boundary-candidate`), so themes give the colours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from evaluator.metrics.registry import RECALL, shown
from evaluator.metrics.shown import Shown
from evaluator.runs.gate_text import at_least, gate_basis
from evaluator.runs.gate_text import number as gate_number
from evaluator.runs.index import RunEntry
from evaluator.runs.verdict_words import RULE_NOTES
from labeler.core.display import shown as safe
from labeler.tui.triage.model import (
    ABSTAIN_GAINED,
    ABSTAIN_LOST,
    ABSTAIN_SAME,
    ChangeRow,
    MetricLine,
    RunView,
    significance_lines,
)

LOST, GAINED = "bold $error", "bold $success"
STATUS_GLYPH = {
    "lost": ("▼", LOST),
    "gained": ("▲", GAINED),
    "unchanged-miss": ("✗", "$text-muted"),
    "unchanged-hit": ("✓", "$text-muted"),
    ABSTAIN_LOST: ("▼", LOST),
    ABSTAIN_GAINED: ("▲", GAINED),
    ABSTAIN_SAME: ("○", "$text-muted"),
}
"""Lost points down, gained up, ✗/✓ both miss/hit, ○ an abstention query whose answer did
not change: readable without colour. `!` marks a critical slice."""
STATUS_SHORT = {
    "unchanged-miss": "both miss", "unchanged-hit": "both hit",
    ABSTAIN_LOST: "answered", ABSTAIN_GAINED: "abstained", ABSTAIN_SAME: "abstention",
}  # fmt: skip
"""What a row without a cause says: an abstention query's, what the candidate did where the
baseline did the other (it should abstain), or `abstention` when neither changed."""
TEXT_WIDTH = 72
"""Query text is cut to one line of an 80-column list."""


GATE_NAMES = {
    "max_lost": "lost",
    "min_recall_delta": "Δrecall",
    "max_chunk_count_ratio": "chunk ratio",
    "max_duplicate_pairs_delta": "Δdup pairs",
    "max_abstention_top1_delta": "Δabstain top-1",
}
"""Gate keys shortened for a 28-column panel; the limit's sign says which way it bounds."""


class IdList(OptionList):
    """An option list that keeps the highlighted id when its options are replaced."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # OptionList's own says "Select"; the help says what selecting does here.
        Binding("enter", "select", "Open: candidate's queries, query, run", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True)

    def replace(self, options: Sequence[Option], current: str | None) -> None:
        self.set_options(options)
        ids = [o.id for o in options]
        if current in ids:
            self.highlighted = ids.index(current)
        elif ids:
            self.highlighted = next((i for i, o in enumerate(options) if not o.disabled), 0)

    @property
    def current_id(self) -> str | None:
        option = self.highlighted_option
        return None if option is None or option.disabled else option.id


class RunList(IdList):
    """Runs, newest first: id, verdict, candidates, corpus and label set hashes."""

    def show(self, runs: Sequence[RunEntry], current: str | None) -> None:
        self.replace([Option(run_line(r, r.id == current), id=r.id) for r in runs], current)


def run_line(run: RunEntry, open_: bool) -> Content:
    verdict = ("PASS", "$success") if run.passed else ("FAIL", "bold $error")
    return Content.assemble(
        "● " if open_ else "  ", (run.id, "bold"), "  ", verdict,
        f"  {len(run.candidates)} candidates · baseline {run.baseline}",
        (f" · corpus {run.corpus_hash[7:15]} labels {run.label_set_hash[7:15]}", "$text-muted"),
    )  # fmt: skip


class CandidateList(IdList):
    """The compared candidates with their gained/lost counts and recall delta."""

    def show(self, run: RunView, current: str | None) -> None:
        options = [Option(Content.styled(f"{safe(run.baseline)}  (baseline)", "$text-muted"),
                          id=run.baseline, disabled=True)]  # fmt: skip
        for name in run.others:
            overall = run.comparison(name).overall
            delta = overall.deltas.get(RECALL)
            line = Content.assemble(
                (safe(name, lines=False), "bold"),
                f"\n +{overall.counts.gained} −{overall.counts.lost}",
                f"  Δrecall {shown(RECALL).delta_text(delta)}" if delta is not None else "",
            )
            options.append(Option(line, id=name))
        self.replace(options, current)


class ChangeList(IdList):
    """Lost then gained queries: glyph, id, cause, recall delta, pattern, slices."""

    def show(self, rows: Sequence[ChangeRow], current: str | None) -> None:
        self.replace([Option(change_line(r), id=r.query) for r in rows], current)


def change_line(row: ChangeRow) -> Content:
    glyph, style = STATUS_GLYPH[row.status]
    delta = "" if row.recall_delta is None else f"{row.recall_delta:+.2f}"
    slices = ", ".join(row.slices)
    what = (row.cause or STATUS_SHORT.get(row.status, row.status)) + (
        "*" if row.declared_only else ""
    )
    text = " ".join(row.text.split())
    text = text if len(text) <= TEXT_WIDTH else text[: TEXT_WIDTH - 1] + "…"
    said = f"{what:<11} {delta:>5}" if delta else f"{what:<17}"
    return Content.assemble(
        (glyph, style), " ", (f"{row.query:<8}", "bold"), ("!" if row.critical else " ", LOST),
        f" {said}  {row.boundary:<24} ", (slices, "$text-muted"),
        ("\n   " + text, "italic") if text else "",
    )  # fmt: skip


class MetricsTable(Static):
    """Metric, baseline, candidate and delta; ✓ marks an improvement, ✗ a regression."""

    def show(
        self, lines: Sequence[MetricLine], columns: tuple[str, str] = ("baseline", "candidate")
    ) -> None:
        rows = [Content.assemble(
            f"{'':<15}", (f"{'▌ ' + columns[0]:>12}", "bold $boundary-baseline"),
            (f"{'┊ ' + columns[1]:>12}", "bold $boundary-candidate"), (f"{'Δ':>10}", "bold"),
        )]  # fmt: skip
        for line in lines:
            mark = {True: ("✓", "$success"), False: ("✗", "$error"), None: (" ", "")}[line.better]
            rows.append(Content.assemble(
                f"{label(line.shown):<15}{line.text(line.baseline):>12}"
                f"{line.text(line.candidate):>12}",
                (f"{line.delta_text():>9} {mark[0]}", mark[1]),
            ))  # fmt: skip
        self.update(Content("\n").join(rows))


def label(shown: Shown) -> str:
    """The label, or the short header when the label would not fit 15 columns."""
    return shown.label if len(shown.label) <= 15 else shown.short


class SignificancePanel(Static):
    """The paired statistics: bootstrap interval of Δ recall@k and McNemar's p."""

    def show(self, run: RunView, candidate: str) -> None:
        self.update("\n".join(significance_lines(run.comparison(candidate))))


class GatesPanel(Static):
    """The candidate's release gates: ✓ held, ✗ broken, with value and limit; and a broken
    check of the baseline's answers (§23), which every comparison with it rests on."""

    def show(self, run: RunView, candidate: str) -> None:
        basis = gate_basis(run.file)
        head = "gates" if basis is None else f"gates at {basis}"  # the figures' basis (§17)
        lines = [Content.styled(head, "$text-muted")]
        broken = [g for g in run.gates(run.baseline) if not g.passed]
        for gate in [*run.gates(candidate), *broken]:
            mark = ("✓", "$success") if gate.passed else ("✗", "bold $error")
            scope = "" if gate.slice is None else gate.slice + " "
            scope = "baseline " if gate.candidate == run.baseline else scope
            value = gate_number(gate.gate, gate.value)  # one number format with every view
            value = value if gate.unavailable is None else (
                "no answer" if gate.unmeasured else "cannot be evaluated")  # fmt: skip
            bound = "≥" if at_least(gate.gate) else "≤"
            name = GATE_NAMES.get(gate.gate, gate.gate)
            limit = gate_number(gate.gate, gate.limit)
            lines.append(Content.assemble(mark, f" {scope}{name} {value} {bound}{limit}"))
        if len(lines) == 1:
            lines.append(Content("no gates declared"))
        self.update(Content("\n").join(lines))


class OtherRulePanel(Static):
    """The candidate under the rule the run did not declare (§7): lost, gained, Δ recall."""

    def show(self, run: RunView, candidate: str) -> None:
        file = run.file
        other = file.other_comparisons.get(candidate)
        if other is None:
            self.update(Content.styled("other match rule: not in this run", "$text-muted"))
            return
        counts = other.overall.counts
        delta = shown(RECALL).delta_text(other.overall.deltas.get(RECALL))
        at_k = f" at k = {file.manifest.settings.k}"  # comparisons_other_rule are at k
        self.update(Content.assemble(
            (f"under {file.other_match}{at_k}", "$text-muted"),
            f" ({RULE_NOTES[file.other_match]})\n",
            (f"▲{counts.gained}", "$success"), " ", (f"▼{counts.lost}", "$error"),
            f"  Δrecall {delta}",
        ))  # fmt: skip

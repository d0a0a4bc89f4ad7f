"""What the triage screen shows, read from a run's RunFile: plain values, no Textual.

The screen reads a run the way `spanlab show` and the report do — from the run folder,
not from a live evaluation — so a CI artifact can be triaged on any machine. The rows of
the query list and their order live here (its filter in change_filter.py), where tests can
check them exactly.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from evaluator.candidates import Settings
from evaluator.generation.run_file import AnswerRecord, by_query, read_answers
from evaluator.metrics.causes import DEPTH_ORDER
from evaluator.metrics.compare import Comparison, Status
from evaluator.metrics.registry import SUMMARY, UNIQUE_EVIDENCE, shown
from evaluator.metrics.shown import Shown
from evaluator.runs.model import RunFile
from evaluator.runs.model_parts import GateRecord
from evaluator.runs.review_view import answerable, groups
from labeler.core.display import shown as safe

CAUSE_ORDER: dict[str, int] = {c: i for i, c in enumerate(DEPTH_ORDER)}
"""Losses a boundary explains come before losses to ranking (crowding), and split ones
(every part retrieved) last."""

ABSTAIN_LOST, ABSTAIN_GAINED, ABSTAIN_SAME = "abstain-lost", "abstain-gained", "abstain-same"
ABSTAIN_STATUSES = (ABSTAIN_LOST, ABSTAIN_GAINED, ABSTAIN_SAME)
"""An abstention query's row, in a run with answers (§23), by its abstention check against
the baseline's: lost — the candidate answered where the baseline abstained; gained — the
reverse; same — neither (both abstained, both answered, or no answer to pair)."""

STATUS_ORDER: dict[str, int] = {
    s: i
    for i, s in enumerate((Status.LOST, Status.GAINED, ABSTAIN_LOST, ABSTAIN_GAINED,
                           Status.UNCHANGED_MISS, Status.UNCHANGED_HIT, ABSTAIN_SAME))
}  # fmt: skip
"""Losses first, then gains, then the abstention queries whose answer changed, then what
both candidates miss, then what both hit, then the other abstention queries."""

CRITICAL = "critical"
"""A slice that is always critical, gated or not."""

MEASURES = SUMMARY
"""The metrics table, top to bottom: every figure the registry marks for the summary."""


@dataclass(frozen=True)
class MetricLine:
    name: str
    """Which figure, by registry name."""
    baseline: float | None
    """The baseline's aggregate."""
    candidate: float | None
    """The candidate's aggregate."""
    count_of: tuple[int, int] | None = None
    """For a per-query count shown as the count it is (unique evidence, §18): answerable
    queries and the groups labelled, so the mean 1.235 reads `84/94`."""

    @property
    def shown(self) -> Shown:
        """Its label, format and direction, from the registry."""
        return shown(self.name)

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.candidate is None:
            return None
        return self.candidate - self.baseline

    @property
    def better(self) -> bool | None:
        """True when the candidate improved, False when it got worse, None otherwise."""
        return self.shown.improved(self.delta)

    def text(self, value: float | None) -> str:
        if self.count_of is not None and value is not None:
            return f"{round(value * self.count_of[0])}/{self.count_of[1]}"
        return self.shown.text(value)

    def delta_text(self) -> str:
        if self.count_of is not None and self.delta is not None:
            return f"{round(self.delta * self.count_of[0]):+d}"
        return self.shown.delta_text(self.delta)


@dataclass(frozen=True)
class ChangeRow:
    """A query the candidate gained or lost against the baseline."""

    query: str
    """Query id."""
    status: str
    """A key of STATUS_ORDER: `lost`, `gained`, … or an abstention query's (ABSTAIN_STATUSES)."""
    cause: str | None
    """For a loss: cut, no signal, disappeared, crowded or split."""
    recall_delta: float | None
    """evidence_recall@k, candidate minus baseline."""
    boundary: str
    """The boundary pattern the query exercises."""
    slices: tuple[str, ...]
    """Its slices."""
    docs: tuple[str, ...]
    """The documents its evidence lies in."""
    critical: bool
    """Whether one of its slices is `critical`."""
    text: str = ""
    """The query text: the run's own (`--include-text`) or the label store's; "" if neither."""
    declared_only: bool = False
    """A loss under the declared match rule only: under the other the query is not lost."""

    def sort_key(self) -> tuple[int, int, int, float, str]:
        """Losses first: critical, then cut/disappeared before crowded, then worst delta;
        then gains, then the queries both miss, then those both hit."""
        lost = self.status == Status.LOST
        cause = CAUSE_ORDER.get(self.cause or "", len(CAUSE_ORDER))
        delta = self.recall_delta or 0.0
        return (STATUS_ORDER.get(self.status, len(STATUS_ORDER)), 0 if self.critical else 1,
                cause, delta if lost else -delta, self.query)  # fmt: skip


class RunView:
    """One run, read for triage; `file` is its RunFile as run.json holds it."""

    def __init__(self, file: RunFile, folder: Path | None = None) -> None:
        self.file = file
        """The run's RunFile."""
        self.folder = folder
        """The run folder, where its answers lie beside run.json (§23); None for a diff."""
        self._answers: dict[str, dict[str, AnswerRecord]] | None = None
        self._reading = threading.Lock()
        self.id = file.id
        """Run id."""
        self.names = file.names
        """Every candidate, baseline first."""
        self.baseline = file.baseline.name
        """The baseline candidate."""
        self.others = file.others
        """The compared candidates."""
        self.k = file.manifest.settings.k
        """Rank cut-off of the measures."""
        self.depth = file.manifest.settings.depth
        """How deep each ranked list was searched."""
        self.threshold = float(file.manifest.settings.coverage_threshold)
        """Share of a span a chunk must cover to match it."""
        self.columns = ("baseline", "candidate")
        """What the metrics table calls its two sides."""
        self.critical_slices = frozenset({CRITICAL})
        """Slices whose losses come first and carry the `!` marker: `critical` only (a
        gated slice is judged by its gate, not marked critical)."""

    @property
    def settings(self) -> Settings:
        return self.file.manifest.settings

    def answers(self) -> dict[str, dict[str, AnswerRecord]]:
        """Query -> candidate -> its answer, generation.jsonl read once (call it in a
        worker); empty for a run without answers. GenerationFileError when the file is out
        of shape or not the one run.json recorded."""
        with self._reading:
            if self._answers is None:
                summary, folder = self.file.generation, self.folder
                found = () if summary is None or folder is None else read_answers(
                    folder, summary.answers_sha256 or None)  # fmt: skip
                self._answers = by_query(found)
            return self._answers

    def comparison(self, name: str) -> Comparison:
        return self.file.comparisons[name]

    def rules(self, name: str) -> tuple[str, str]:
        """Candidate `name`'s declared match rule and its other (a diff's sides may differ)."""
        return self.file.match, self.file.other_match

    def metric_lines(self, name: str) -> list[MetricLine]:
        base, cand = self.file.baseline, self.file.candidate(name)
        count = (answerable(self.file), groups(self.file))
        return [MetricLine(m, base.metric(m), cand.metric(m),
                           count if m == UNIQUE_EVIDENCE else None) for m in MEASURES]  # fmt: skip

    def gates(self, name: str) -> list[GateRecord]:
        return [g for g in self.file.gates if g.candidate == name]

    def changes(self, name: str, texts: Mapping[str, str] | None = None) -> list[ChangeRow]:
        """Every answerable query, and in a run with answers every abstention query, in
        triage order (see `ChangeRow.sort_key`); its text is the run's own, else the one
        `texts` gives."""
        rows = self._abstentions(name, texts or {})
        for qid, change in self.comparison(name).queries.items():
            if change.status is None:
                continue
            entry = self.file.queries[qid]
            text = self._text(qid, texts or {})
            other = entry.candidates[name].other
            only = (
                change.status == Status.LOST and other is not None and other.status != Status.LOST
            )
            rows.append(
                ChangeRow(
                    qid, change.status, change.cause, change.recall_delta, entry.boundary,
                    entry.slices, entry.docs, bool(self.critical_slices & set(entry.slices)),
                    text, only,
                )
            )  # fmt: skip
        return sorted(rows, key=ChangeRow.sort_key)

    def _text(self, qid: str, texts: Mapping[str, str]) -> str:
        entry = self.file.queries[qid]
        text = entry.text if entry.text is not None else texts.get(qid, "")
        return safe(text, lines=False)  # a list row: drawn as is

    def _abstentions(self, name: str, texts: Mapping[str, str]) -> list[ChangeRow]:
        """The abstention queries, each by the abstention check of the candidate's answer
        against the baseline's (run.json's comparison, §23); none without answers."""
        summary = self.file.generation
        comp = None if summary is None else summary.comparisons.get(name)
        check = None if comp is None else comp.checks.get("abstention")
        if check is None:
            return []
        lost, gained = set(check.lost), set(check.gained)
        return [
            ChangeRow(qid, ABSTAIN_LOST if qid in lost else ABSTAIN_GAINED if qid in gained
                      else ABSTAIN_SAME, None, None, entry.boundary, entry.slices, entry.docs,
                      bool(self.critical_slices & set(entry.slices)), self._text(qid, texts))
            for qid, entry in self.file.queries.items() if entry.abstain
        ]  # fmt: skip


def significance_lines(comparison: Comparison) -> list[str]:
    """The paired statistics in words: the bootstrap interval and McNemar's p (§7)."""
    sig, counts = comparison.significance, comparison.overall.counts
    lines = []
    ci = sig.recall_interval
    if ci is not None:
        lines += [
            f"Δ recall@k {ci.mean_difference:+.3f}, 95% CI [{ci.low:+.3f}, {ci.high:+.3f}]",
            f"  paired bootstrap, {ci.resamples} resamples, seed {ci.seed}",
        ]
    tally = f"{counts.gained} gained / {counts.lost} lost"
    if sig.decisive:
        lines.append(f"McNemar exact p = {sig.mcnemar_p:.3g} ({tally})")
    else:
        lines.append(f"{tally}: {sig.reason}")
    return lines

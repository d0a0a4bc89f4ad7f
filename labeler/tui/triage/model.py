"""What the triage screen shows, read from a run's RunFile: plain values, no Textual.

The screen reads a run the way `spanlab show` and the report do — from the run folder,
not from a live evaluation — so a CI artifact can be triaged on any machine. Ordering
and filtering of the gained/lost list live here, where tests can check them exactly.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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
from labeler.core.errors import SpanlabError
from labeler.core.values import Boundary

CAUSE_ORDER: dict[str, int] = {c: i for i, c in enumerate(DEPTH_ORDER)}
"""Losses a boundary explains come before losses to ranking (crowding), and split ones
(every part retrieved) last."""

STATUS_ORDER: dict[str, int] = {
    s: i
    for i, s in enumerate((Status.LOST, Status.GAINED, Status.UNCHANGED_MISS, Status.UNCHANGED_HIT))
}
"""Losses first, then gains, then what both candidates miss, then what both hit."""

STATUS_WORDS: dict[str, tuple[str, ...]] = {
    "lost": (Status.LOST,),
    "gained": (Status.GAINED,),
    "both-miss": (Status.UNCHANGED_MISS,),
    "both-hit": (Status.UNCHANGED_HIT,),
    "all": tuple(STATUS_ORDER),
}
"""Filter words that choose statuses; with none, the list shows the gained and lost."""

CAUSE_WORDS = tuple(str(c) for c in DEPTH_ORDER)
"""Filter words that choose losses by cause."""

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
    """`lost` or `gained`."""
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
        """Every answerable query, in triage order (see `ChangeRow.sort_key`); its text is
        the run's own, else the one `texts` gives."""
        rows = []
        for qid, change in self.comparison(name).queries.items():
            if change.status is None:
                continue
            entry = self.file.queries[qid]
            text = entry.text if entry.text is not None else (texts or {}).get(qid, "")
            text = safe(text, lines=False)  # a list row: drawn as is
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


@dataclass(frozen=True)
class ChangeFilter:
    """What the query list shows: `slice:critical pattern:cond doc:shipping both-miss split
    parcel` — fields, status and cause words, and words of the id or text."""

    slice: str | None = None
    """Only queries carrying this slice."""
    pattern: Boundary | None = None
    """Only queries exercising this boundary pattern."""
    doc: str | None = None
    """Only queries with evidence in a document whose id contains this."""
    statuses: frozenset[str] = frozenset()
    """Only queries of these statuses; none named: the gained and lost."""
    causes: frozenset[str] = frozenset()
    """Only losses of these causes."""
    words: tuple[str, ...] = ()
    """Words that must each appear in the id or the query text."""

    @classmethod
    def parse(cls, line: str) -> ChangeFilter:
        """Read a filter line; an unknown field or an ambiguous pattern raises SpanlabError."""
        found = cls()
        words: list[str] = []
        statuses: set[str] = set()
        causes: set[str] = set()
        for token in line.split():
            field, sep, value = token.partition(":")
            if not sep or not value:
                word = token.lower()
                if word in STATUS_WORDS:
                    statuses.update(STATUS_WORDS[word])
                elif word in CAUSE_WORDS:
                    causes.add(word)
                else:
                    words.append(word)
            elif field in ("slice", "sl"):
                found = replace(found, slice=value)
            elif field in ("pattern", "p"):
                found = replace(found, pattern=_pattern(value.lower()))
            elif field in ("doc", "d"):
                found = replace(found, doc=value)
            else:
                raise SpanlabError(f"unknown filter {field!r} (slice, pattern, doc)", key=field)
        return replace(found, words=tuple(words), statuses=frozenset(statuses),
                       causes=frozenset(causes))  # fmt: skip

    def matches(self, row: ChangeRow) -> bool:
        if row.status not in (self.statuses or DEFAULT_STATUSES):
            return False
        if self.causes and row.cause not in self.causes:
            return False
        if self.slice is not None and self.slice not in row.slices:
            return False
        if self.pattern is not None and row.boundary != self.pattern.value:
            return False
        if self.doc is not None and not any(self.doc in d for d in row.docs):
            return False
        haystack = f"{row.query} {row.text}".lower()
        return all(w in haystack for w in self.words)

    def apply(self, rows: Sequence[ChangeRow]) -> list[ChangeRow]:
        return [r for r in rows if self.matches(r)]

    def unknown(self, rows: Sequence[ChangeRow]) -> str | None:
        """Why the filter names what no query has (`slice:nope`), or None: said, not an
        empty list that looks like an answer."""
        slices = sorted({s for r in rows for s in r.slices})
        if self.slice is not None and self.slice not in slices:
            return f"no query has slice:{self.slice} (slices: {', '.join(slices) or 'none'})"
        if self.doc is not None and not any(self.doc in d for r in rows for d in r.docs):
            return f"no query has evidence in a document matching doc:{self.doc}"
        return None


DEFAULT_STATUSES = (Status.LOST, Status.GAINED)
"""What the list shows when the filter names no status."""


def _pattern(value: str) -> Boundary:
    found = [b for b in Boundary if b.value == value] or [
        b for b in Boundary if b.value.startswith(value)
    ]
    if len(found) != 1:
        allowed = ", ".join(b.value for b in Boundary)
        raise SpanlabError(f"pattern:{value} matches {len(found)} of: {allowed}", key="pattern")
    return found[0]

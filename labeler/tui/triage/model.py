"""What the triage screen shows, read from run.json: plain values, no Textual.

The screen reads a run the way `spanlab show` and the report do — from the run folder,
not from a live evaluation — so a CI artifact can be triaged on any machine. Ordering
and filtering of the gained/lost list live here, where tests can check them exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from labeler.core.errors import SpanlabError
from labeler.core.values import Boundary

CAUSE_ORDER = {"cut": 0, "disappeared": 1, "crowded": 2}
"""Losses a boundary explains come before losses to ranking (crowding)."""

CRITICAL = "critical"
"""A slice that is always critical, gated or not."""


@dataclass(frozen=True)
class Measure:
    key: str
    """The metric's name in run.json."""
    label: str
    """Its name in the table."""
    pattern: str
    """How a value is printed."""
    higher_is_better: bool | None
    """Which way is an improvement (None: neither, it is a size)."""


MEASURES = (
    Measure("evidence_recall@k", "recall@k", "{:.3f}", True),
    Measure("hit@k", "hit@k", "{:.3f}", True),
    Measure("document_hit@k", "doc hit@k", "{:.3f}", True),
    Measure("oracle_recall", "oracle recall", "{:.3f}", True),
    Measure("mean_first_match_rank", "1st match rank", "{:.2f}", False),
    Measure("unique_evidence@k", "unique evid@k", "{:.3f}", True),
    Measure("duplicate_pairs@k", "dup pairs@k", "{:.2f}", False),
    Measure("prompt_tokens@k", "prompt tok@k", "{:.0f}", False),
    Measure("chroma_iou", "IoU", "{:.3f}", True),
    Measure("chroma_precision_omega", "precision Ω", "{:.3f}", True),
    Measure("abstention_top1", "abstain top-1", "{:.3f}", False),
    Measure("chunk_count", "chunks", "{:.0f}", None),
    Measure("indexed_tokens", "indexed tokens", "{:.0f}", None),
)
"""The metrics table, top to bottom (timings stay in the report: they are noise here)."""


@dataclass(frozen=True)
class MetricLine:
    measure: Measure
    """Which metric."""
    baseline: float | None
    """The baseline's aggregate."""
    candidate: float | None
    """The candidate's aggregate."""

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.candidate is None:
            return None
        return self.candidate - self.baseline

    @property
    def better(self) -> bool | None:
        """True when the candidate improved, False when it got worse, None otherwise."""
        d, up = self.delta, self.measure.higher_is_better
        if d is None or up is None or abs(d) < 1e-12:
            return None
        return (d > 0) == up

    def text(self, value: float | None) -> str:
        return "–" if value is None else self.measure.pattern.format(value)

    def delta_text(self) -> str:
        d = self.delta
        return "–" if d is None else "+" + self.text(d) if d >= 0 else self.text(d)


@dataclass(frozen=True)
class ChangeRow:
    """A query the candidate gained or lost against the baseline."""

    query: str
    """Query id."""
    status: str
    """`lost` or `gained`."""
    cause: str | None
    """For a loss: cut, disappeared or crowded."""
    recall_delta: float | None
    """evidence_recall@k, candidate minus baseline."""
    boundary: str
    """The boundary pattern the query exercises."""
    slices: tuple[str, ...]
    """Its slices."""
    docs: tuple[str, ...]
    """The documents its evidence lies in."""
    critical: bool
    """Whether one of its slices is critical (named `critical` or gated)."""

    def sort_key(self) -> tuple[int, int, int, float, str]:
        """Losses first: critical, then cut/disappeared before crowded, then worst delta."""
        lost = self.status == "lost"
        cause = CAUSE_ORDER.get(self.cause or "", len(CAUSE_ORDER))
        delta = self.recall_delta or 0.0
        return (0 if lost else 1, 0 if self.critical else 1, cause,
                delta if lost else -delta, self.query)  # fmt: skip


class RunView:
    """One run.json, read for triage; `data` is the parsed document as written."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        """The run.json document."""
        self.id: str = str(data["id"])
        """Run id."""
        self.names: list[str] = list(data["candidates"])
        """Every candidate, baseline first."""
        self.baseline: str = next(n for n in self.names if data["candidates"][n]["baseline"])
        """The baseline candidate."""
        self.others: list[str] = [n for n in self.names if n != self.baseline]
        """The compared candidates."""
        settings = data["manifest"]["settings"]
        self.k = int(settings["k"])
        """Rank cut-off of the measures."""
        self.depth = int(settings["depth"])
        """How deep each ranked list was searched."""
        self.threshold = float(settings["coverage_threshold"])
        """Share of a span a chunk must cover to match it."""
        self.critical_slices = frozenset({CRITICAL} | {
            g["scope"].removeprefix("slice:") for g in data.get("gates", [])
            if str(g["scope"]).startswith("slice:")
        })  # fmt: skip
        """Slices that decide the order of losses: `critical` and every gated slice."""

    @property
    def settings(self) -> Mapping[str, Any]:
        settings: Mapping[str, Any] = self.data["manifest"]["settings"]
        return settings

    def comparison(self, name: str) -> Mapping[str, Any]:
        comparison: Mapping[str, Any] = self.data["comparisons"][name]
        return comparison

    def metric_lines(self, name: str) -> list[MetricLine]:
        base = self.data["candidates"][self.baseline]["metrics"]
        cand = self.data["candidates"][name]["metrics"]
        return [MetricLine(m, base.get(m.key), cand.get(m.key)) for m in MEASURES]

    def gates(self, name: str) -> list[Mapping[str, Any]]:
        return [g for g in self.data.get("gates", []) if g["candidate"] == name]

    def changes(self, name: str) -> list[ChangeRow]:
        """Lost then gained queries, in triage order (see `ChangeRow.sort_key`)."""
        rows = []
        for qid, change in self.comparison(name)["queries"].items():
            if change["status"] not in ("lost", "gained"):
                continue
            entry = self.data["queries"][qid]
            slices = tuple(entry["slices"])
            rows.append(
                ChangeRow(
                    qid, change["status"], change["cause"], change["recall_delta"],
                    entry["boundary"], slices, tuple(sorted({e["doc"] for e in entry["evidence"]})),
                    bool(self.critical_slices & set(slices)),
                )
            )  # fmt: skip
        return sorted(rows, key=ChangeRow.sort_key)


def read_run(folder: Path) -> RunView:
    """The run in `folder`; a missing or unreadable run.json raises SpanlabError."""
    path = folder / "run.json"
    try:
        return RunView(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError, KeyError, StopIteration) as exc:
        raise SpanlabError(f"cannot read the run: {exc}", file=str(path)) from None


def significance_lines(comparison: Mapping[str, Any]) -> list[str]:
    """The paired statistics in words: the bootstrap interval and McNemar's p (§7)."""
    sig, counts = comparison["significance"], comparison["overall"]["counts"]
    lines = []
    ci = sig["recall_interval"]
    if ci is not None:
        low, high = ci["low"], ci["high"]
        lines += [
            f"Δ recall@k {ci['mean_difference']:+.3f}, 95% CI [{low:+.3f}, {high:+.3f}]",
            f"  paired bootstrap, {ci['resamples']} resamples, seed {ci['seed']}",
        ]
    tally = f"{counts['gained']} gained / {counts['lost']} lost"
    if sig["decisive"]:
        lines.append(f"McNemar exact p = {sig['mcnemar_p']:.3g} ({tally})")
    else:
        lines.append(f"{tally}: {sig['reason']}")
    return lines


@dataclass(frozen=True)
class ChangeFilter:
    """What the gained/lost list shows: `slice:critical pattern:cond doc:shipping cut`."""

    slice: str | None = None
    """Only queries carrying this slice."""
    pattern: Boundary | None = None
    """Only queries exercising this boundary pattern."""
    doc: str | None = None
    """Only queries with evidence in a document whose id contains this."""
    words: tuple[str, ...] = ()
    """Words that must each appear in the id, status or cause."""

    @classmethod
    def parse(cls, line: str) -> ChangeFilter:
        """Read a filter line; an unknown field or an ambiguous pattern raises SpanlabError."""
        found = cls()
        words = []
        for token in line.split():
            field, sep, value = token.partition(":")
            if not sep or not value:
                words.append(token.lower())
            elif field in ("slice", "sl"):
                found = replace(found, slice=value)
            elif field in ("pattern", "p"):
                found = replace(found, pattern=_pattern(value.lower()))
            elif field in ("doc", "d"):
                found = replace(found, doc=value)
            else:
                raise SpanlabError(f"unknown filter {field!r} (slice, pattern, doc)", key=field)
        return replace(found, words=tuple(words))

    def matches(self, row: ChangeRow) -> bool:
        if self.slice is not None and self.slice not in row.slices:
            return False
        if self.pattern is not None and row.boundary != self.pattern.value:
            return False
        if self.doc is not None and not any(self.doc in d for d in row.docs):
            return False
        haystack = f"{row.query} {row.status} {row.cause or ''}".lower()
        return all(w in haystack for w in self.words)

    def apply(self, rows: Sequence[ChangeRow]) -> list[ChangeRow]:
        return [r for r in rows if self.matches(r)]


def _pattern(value: str) -> Boundary:
    found = [b for b in Boundary if b.value == value] or [
        b for b in Boundary if b.value.startswith(value)
    ]
    if len(found) != 1:
        allowed = ", ".join(b.value for b in Boundary)
        raise SpanlabError(f"pattern:{value} matches {len(found)} of: {allowed}", key="pattern")
    return found[0]

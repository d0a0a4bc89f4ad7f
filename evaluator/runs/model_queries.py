"""The per-query parts of run.json as frozen values: each query's evidence and, per
candidate, its ranked list, values and status; and each comparison with the baseline.

Comparisons are read back into `evaluator.metrics.compare`'s own values, so a comparison
from a file and one just computed are the same type, status and cause included.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from evaluator.chunk import Chunk
from evaluator.metrics import QueryFacets, Value
from evaluator.metrics.compare import (
    Cause,
    Comparison,
    GroupComparison,
    Interval,
    QueryChange,
    Significance,
    Status,
    StatusCounts,
)
from evaluator.metrics.registry import COVERAGE, FIRST_RANKS
from evaluator.runs.model_json import Reader
from labeler.core.values import Boundary, valid_slice


class RankedEntry(NamedTuple):
    """One retrieved chunk, as offsets: written as `[chunk_id, doc, start, end, score]`."""

    chunk_id: str
    """The chunk's id."""
    doc: str
    """Its document."""
    start: int
    """First code point."""
    end: int
    """End, exclusive."""
    score: float
    """Retriever score, rounded to 6 places."""

    @property
    def chunk(self) -> Chunk:
        return Chunk(self.chunk_id, self.doc, self.start, self.end)

    @classmethod
    def from_json(cls, r: Reader) -> RankedEntry:
        parts = r.array()
        if len(parts) != 5:
            r.fail(f"must be [chunk_id, doc, start, end, score], not {len(parts)} items")
        chunk_id, doc, start, end, score = parts
        entry = cls(chunk_id.text(), doc.doc(), start.count(), end.count(), score.number())
        if entry.end < entry.start:
            end.fail(f"ends ({entry.end:,}) before it starts ({entry.start:,})")
        return entry

    def to_json(self) -> list[Any]:
        return list(self)


def read_value(name: str, r: Reader, spans: int) -> Value | None:
    """Measure `name`'s per-query value: a number within the measure's bounds, a flag, null,
    or one number per span (an array of at most `spans`: first-match ranks, coverage), each
    kept as the file has it."""
    if r.value is None or isinstance(r.value, bool):
        return r.value
    if isinstance(r.value, list):
        return tuple(item.figure(name) for item in r.at_most(spans, "the query's spans"))
    return r.figure(name)


def read_values(r: Reader, spans: int) -> dict[str, Value | None]:
    return {name: read_value(name, v, spans) for name, v in r.items()}


def _per_span(values: Mapping[str, Value | None], name: str) -> tuple[float | None, ...] | None:
    found = values.get(name)
    return found if isinstance(found, tuple) else None


@dataclass(frozen=True)
class RuleResult:
    """One query in one candidate under the rule the run did not declare (§7): the
    rule-dependent values, its status against the baseline and its spans' causes."""

    values: Mapping[str, Value | None]
    """Rule-dependent measure name -> value under the other rule."""
    status: Status | None
    """Against the baseline under the other rule; None for the baseline and abstention."""
    cause: Cause | None
    """For a loss under the other rule: its deepest span cause there."""
    span_causes: tuple[Cause | None, ...]
    """Per span, its cause under the other rule (None: matched within k)."""

    @classmethod
    def from_json(cls, r: Reader, spans: int) -> RuleResult:
        return cls(
            read_values(r.at("values"), spans),
            r.at("status").nullable(lambda s: s.choice(Status)),
            r.at("cause").nullable(lambda c: c.choice(Cause)),
            _read_span_causes(r, spans),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "values": {k: list(v) if isinstance(v, tuple) else v for k, v in self.values.items()},
            "status": None if self.status is None else self.status.value,
            "cause": None if self.cause is None else self.cause.value,
            "span_causes": [None if c is None else c.value for c in self.span_causes],
        }


@dataclass(frozen=True)
class QueryResult:
    """One query in one candidate: what it retrieved and how that compares."""

    ranked: tuple[RankedEntry, ...]
    """The ranked list, to depth."""
    values: Mapping[str, Value | None]
    """Measure name -> this query's value (None: undefined for it)."""
    status: Status | None
    """Against the baseline; None for the baseline and for abstention queries."""
    cause: Cause | None
    """For a loss: why the candidate missed (the deepest of its spans' causes)."""
    span_causes: tuple[Cause | None, ...] = ()
    """Per span, why it was missed in this candidate (None: matched within k); empty for
    an abstention query and in runs written before spans had causes."""
    other: RuleResult | None = None
    """The same query under the other match rule; None in runs written before both rules
    were kept (`spanlab.run/1` without `other_rule`)."""
    sent: tuple[RankedEntry, ...] = ()
    """Per rank, the unit sent for that rank's chunk (§18: its parent or merged window);
    empty when the candidate sends its chunks themselves."""
    budget_cut: int | None = None
    """How many ranks the context budget sends (§17's fill rule: the first rank whose
    context would cross it and every later one are left out); None in runs written before
    it was kept, or without a budget."""

    @property
    def first_match_ranks(self) -> tuple[int | None, ...] | None:
        """Per span, the first matching rank within depth; None for an abstention query."""
        ranks = _per_span(self.values, FIRST_RANKS)
        return None if ranks is None else tuple(None if r is None else int(r) for r in ranks)

    @property
    def coverage(self) -> tuple[float, ...] | None:
        """Per span, the share the top k cover together; None when not recorded."""
        shares = _per_span(self.values, COVERAGE)
        return None if shares is None else tuple(float(s or 0.0) for s in shares)

    def span_cause(self, n: int) -> Cause | None:
        """The cause of span `n` (0-based); None when matched or not recorded."""
        return self.span_causes[n] if n < len(self.span_causes) else None

    @classmethod
    def from_json(cls, r: Reader, depth: int, spans: int) -> QueryResult:
        """One candidate's result: its ranked list at most the run's `depth` long, its
        per-span arrays at most the query's `spans`."""
        ranked = r.at("ranked").at_most(depth, "the run's depth")
        other = r.at("other_rule") if "other_rule" in r.mapping() else None
        return cls(
            tuple(RankedEntry.from_json(e) for e in ranked),
            read_values(r.at("values"), spans),
            r.at("status").nullable(lambda s: s.choice(Status)),
            r.at("cause").nullable(lambda c: c.choice(Cause)),
            _read_span_causes(r, spans),
            None if other is None else RuleResult.from_json(other, spans),
            _read_sent(r, depth),
            r.at("budget_cut").nullable(lambda n: n.count(depth))
            if "budget_cut" in r.mapping()
            else None,
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ranked": [e.to_json() for e in self.ranked],
            "values": {k: list(v) if isinstance(v, tuple) else v for k, v in self.values.items()},
            "status": None if self.status is None else self.status.value,
            "cause": None if self.cause is None else self.cause.value,
            "span_causes": [None if c is None else c.value for c in self.span_causes],
        }
        if self.other is not None:
            data["other_rule"] = self.other.to_json()
        if self.sent:
            data["sent"] = [e.to_json() for e in self.sent]
        if self.budget_cut is not None:
            data["budget_cut"] = self.budget_cut
        return data

    def sent_at(self, rank: int) -> RankedEntry | None:
        """What was sent for the chunk at 1-based `rank`; None when it was sent itself."""
        return self.sent[rank - 1] if rank <= len(self.sent) else None

    def cause_under(self, n: int, declared: bool) -> Cause | None:
        """Span `n`'s cause under the declared rule, or under the other one."""
        if declared:
            return self.span_cause(n)
        causes = () if self.other is None else self.other.span_causes
        return causes[n] if n < len(causes) else None


def _read_sent(r: Reader, depth: int) -> tuple[RankedEntry, ...]:
    if "sent" not in r.mapping():
        return ()
    return tuple(RankedEntry.from_json(e) for e in r.at("sent").at_most(depth, "the run's depth"))


def _read_span_causes(r: Reader, spans: int) -> tuple[Cause | None, ...]:
    if "span_causes" not in r.mapping():
        return ()
    causes = r.at("span_causes").at_most(spans, "the query's spans")
    return tuple(c.nullable(lambda x: x.choice(Cause)) for c in causes)


@dataclass(frozen=True)
class EvidenceRef:
    """An evidence span by offsets only: run.json holds no text unless asked."""

    doc: str
    """Document id."""
    start: int
    """First code point."""
    end: int
    """End, exclusive."""
    group: int | None = None
    """Its group of alternatives (§18); None: a group of its own. Absent from run.json then."""

    @classmethod
    def from_json(cls, r: Reader) -> EvidenceRef:
        group = r.at("group").count() if "group" in r.mapping() else None
        if group == 0:
            r.at("group").fail("must be a positive integer, got 0")
        ref = cls(r.at("doc").doc(), r.at("start").count(), r.at("end").count(), group)
        if ref.end < ref.start:
            r.at("end").fail(f"ends ({ref.end:,}) before it starts ({ref.start:,})")
        return ref

    def to_json(self) -> dict[str, Any]:
        grouped = {} if self.group is None else {"group": self.group}
        return {"doc": self.doc, "start": self.start, "end": self.end, **grouped}


@dataclass(frozen=True)
class QueryRecord:
    """One labelled query and what every candidate did with it."""

    id: str
    """Query id."""
    abstain: bool
    """Marked as having no answer in the corpus."""
    boundary: str
    """The boundary pattern it exercises."""
    slices: tuple[str, ...]
    """Its slices."""
    evidence: tuple[EvidenceRef, ...]
    """Its evidence spans, in label order."""
    candidates: Mapping[str, QueryResult]
    """Candidate name -> its result, in run order."""
    text: str | None = None
    """The query text, only in a run made with `--include-text`."""

    @property
    def answerable(self) -> bool:
        return not self.abstain and bool(self.evidence)

    @property
    def docs(self) -> tuple[str, ...]:
        """The documents its evidence lies in, sorted."""
        return tuple(sorted({e.doc for e in self.evidence}))

    @property
    def facets(self) -> QueryFacets:
        """What the query is, for the breakdowns, as the run measured it."""
        lengths = tuple(e.end - e.start for e in self.evidence)
        return QueryFacets(self.answerable, self.abstain, self.boundary, self.slices, self.docs,
                           lengths)  # fmt: skip

    @classmethod
    def from_json(cls, qid: str, r: Reader, depth: int) -> QueryRecord:
        """The query; each candidate's ranked list at most the run's `depth` long."""
        text = r.at("text").prose() if "text" in r.mapping() else None
        evidence = tuple(EvidenceRef.from_json(e) for e in r.at("evidence").array())
        return cls(
            qid, r.at("abstain").flag(), r.at("boundary").choice(Boundary), _slices(r),
            evidence, {name: QueryResult.from_json(c, depth, len(evidence))
                       for name, c in r.at("candidates").items()}, text,
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "abstain": self.abstain,
            "boundary": self.boundary,
            "slices": list(self.slices),
            "evidence": [e.to_json() for e in self.evidence],
            "candidates": {name: c.to_json() for name, c in self.candidates.items()},
        }
        if self.text is not None:
            data["text"] = self.text
        return data


def _slices(r: Reader) -> tuple[str, ...]:
    """A query's slices, each a slice name as the label set allows it."""
    items = r.at("slices").array()
    for item in items:
        if not valid_slice(name := item.text()):
            item.fail(f"is not a slice name: {name[:40]!r}")
    return tuple(item.text() for item in items)


def read_group_comparison(r: Reader) -> GroupComparison:
    c = r.at("counts")
    counts = StatusCounts(*(c.at(k).count() for k in
                            ("gained", "lost", "unchanged_hit", "unchanged_miss")))  # fmt: skip
    return GroupComparison(r.at("queries").count(), counts, r.at("deltas").numbers())


def read_interval(r: Reader) -> Interval:
    return Interval(
        r.at("mean_difference").number(), r.at("low").number(), r.at("high").number(),
        r.at("pairs").count(), r.at("resamples").count(), r.at("seed").count(),
    )  # fmt: skip


def read_significance(r: Reader) -> Significance:
    return Significance(
        r.at("answerable").count(), r.at("decisive").flag(), r.at("reason").opt_text(),
        r.at("mcnemar_p").nullable(lambda p: p.number(0.0, 1.0)),
        r.at("recall_interval").nullable(read_interval),
    )  # fmt: skip


def read_change(r: Reader) -> QueryChange:
    return QueryChange(
        r.at("query").text(), r.at("status").nullable(lambda s: s.choice(Status)),
        r.at("recall_delta").opt_number(), r.at("top1_delta").opt_number(),
        r.at("cause").nullable(lambda c: c.choice(Cause)),
    )  # fmt: skip


def read_comparison(r: Reader) -> Comparison:
    """A candidate against the baseline, as `Comparison.to_json` wrote it."""
    return Comparison(
        r.at("baseline").text(), r.at("candidate").text(),
        {qid: read_change(c) for qid, c in r.at("queries").items()},
        read_group_comparison(r.at("overall")),
        {dim: {key: read_group_comparison(g) for key, g in groups.items()}
         for dim, groups in r.at("breakdowns").items()},
        read_significance(r.at("significance")),
    )  # fmt: skip

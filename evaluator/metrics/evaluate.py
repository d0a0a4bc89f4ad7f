"""Run every measure over a candidate's ranked lists, then aggregate and break down.

Aggregation is generic (ranx-style): per-query values go in, each measure reduces the
queries where it is defined, and the same reduction runs per slice, boundary pattern and
document. Results hold ids, offsets and numbers only, never document text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from evaluator.chunk import Chunk
from evaluator.metrics.base import Measure, Value
from evaluator.metrics.causes import Cause
from evaluator.metrics.index import ChunkIndex, TokenCounter, as_counter
from evaluator.metrics.registry import MEASURES
from evaluator.metrics.sent import Sending
from evaluator.metrics.settings import HasMetricSettings, MetricSettings
from evaluator.metrics.view import QueryView
from evaluator.retrieval.base import Ranked
from labeler.core.values import Query

DIMENSIONS = ("slice", "boundary", "doc", "format", "length")
"""The breakdowns: a query belongs to each of its slices, each evidence document, each of
their formats (extension) and each length bucket of its evidence spans (§17)."""

LENGTH_BUCKETS = ((50, "< 50 ch"), (200, "50–199 ch"), (500, "200–499 ch"), (None, "≥ 500 ch"))
"""Evidence length buckets in code points: (end, exclusive, or None; label), in order."""


def doc_format(doc: str) -> str:
    """A document's format for the breakdown: its extension (`md`), `(none)` without one."""
    name = doc.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name.strip(".") else "(none)"


def length_bucket(length: int) -> str:
    """The label of the bucket a span of `length` code points falls in."""
    return next(label for end, label in LENGTH_BUCKETS if end is None or length < end)


def key_order(dimension: str, key: str) -> tuple[int, str]:
    """How a breakdown's keys are ordered: length buckets by size, the rest by name."""
    labels = [label for _, label in LENGTH_BUCKETS]
    return (labels.index(key), key) if dimension == "length" and key in labels else (0, key)


PerQuery = dict[str, dict[str, Value | None]]
SpanCauses = dict[str, tuple[Cause | None, ...]]
"""Query id -> per span, why it was missed (None: matched within k)."""


@dataclass(frozen=True)
class QueryFacets:
    """What a query is, for grouping: no text, only tags and document ids."""

    answerable: bool
    """Has evidence and is not an abstention query."""
    abstain: bool
    """Marked as having no answer in the corpus."""
    boundary: str
    """Its boundary pattern."""
    slices: tuple[str, ...]
    """Its slices."""
    docs: tuple[str, ...]
    """The documents its evidence lies in, sorted."""
    lengths: tuple[int, ...] = ()
    """Its evidence spans' lengths in code points, in label order."""

    @classmethod
    def of(cls, query: Query) -> QueryFacets:
        docs = tuple(sorted({s.doc for s in query.evidence}))
        lengths = tuple(s.end - s.start for s in query.evidence)
        return cls(query.answerable, query.abstain, str(query.boundary), query.slices, docs,
                   lengths)  # fmt: skip

    def keys(self, dimension: str) -> tuple[str, ...]:
        """The groups of `dimension` this query falls in."""
        if dimension == "slice":
            return self.slices
        if dimension == "boundary":
            return (self.boundary,)
        if dimension == "doc":
            return self.docs
        if dimension == "format":
            return tuple(sorted({doc_format(d) for d in self.docs}))
        if dimension == "length":
            buckets = {length_bucket(n) for n in self.lengths}
            return tuple(sorted(buckets, key=lambda b: key_order("length", b)))
        raise ValueError(f"unknown dimension {dimension!r}")


@dataclass(frozen=True)
class Group:
    """One breakdown cell: how many queries fell in it and each measure's aggregate."""

    queries: int
    """Queries in the group, whether or not a measure is defined for them."""
    metrics: dict[str, float | None]
    """Measure name -> aggregate over the group's queries where it is defined."""


@dataclass(frozen=True)
class CandidateResult:
    """Everything measured for one candidate; JSON-ready through `to_json()`."""

    name: str
    """The candidate's name."""
    settings: MetricSettings
    """The parameters the measures used."""
    measures: tuple[str, ...]
    """Measure names, in report order."""
    facets: dict[str, QueryFacets]
    """Query id -> its grouping facets."""
    per_query: PerQuery
    """Query id -> measure name -> value (None: undefined for that query)."""
    aggregates: dict[str, float | None]
    """Measure name -> aggregate over every query where it is defined."""
    breakdowns: dict[str, dict[str, Group]]
    """Dimension (slice, boundary, doc) -> key -> group."""
    span_causes: SpanCauses = field(default_factory=dict)
    """Query id -> per span, its cause (split, cut, crowded, disappeared) or None."""

    def value(self, query_id: str, measure: str) -> Value | None:
        return self.per_query[query_id][measure]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def reduce_all(
    measures: Sequence[Measure], per_query: PerQuery, ids: Iterable[str]
) -> dict[str, float | None]:
    """Each measure's aggregate over `ids`, skipping queries where it is undefined."""
    rows = [per_query[i] for i in ids]
    result: dict[str, float | None] = {}
    for m in measures:
        result[m.name] = m.reduce([v for r in rows if (v := r[m.name]) is not None])
    return result


def group_ids(facets: Mapping[str, QueryFacets], dimension: str) -> dict[str, list[str]]:
    """Key -> query ids in that group, keys sorted."""
    groups: defaultdict[str, list[str]] = defaultdict(list)
    for qid, f in facets.items():
        for key in f.keys(dimension):
            groups[key].append(qid)
    return {key: groups[key] for key in sorted(groups, key=lambda k: key_order(dimension, k))}


def breakdowns(
    measures: Sequence[Measure], per_query: PerQuery, facets: Mapping[str, QueryFacets]
) -> dict[str, dict[str, Group]]:
    return {
        dim: {
            key: Group(len(ids), reduce_all(measures, per_query, ids))
            for key, ids in group_ids(facets, dim).items()
        }
        for dim in DIMENSIONS
    }


def evaluate(
    queries: Sequence[Query],
    ranked_by_query: Mapping[str, Sequence[Ranked]],
    index: ChunkIndex | Iterable[Chunk],
    *,
    settings: HasMetricSettings,
    texts: Mapping[str, str],
    count_tokens: Callable[[str], int] | TokenCounter,
    name: str = "",
    measures: Sequence[Measure] = MEASURES,
    sending: Sending | None = None,
    with_causes: bool = True,
    views: Sequence[QueryView] | None = None,
) -> CandidateResult:
    """Measure one candidate. `ranked_by_query` maps query id -> ranked list (≥ depth long
    when the index allows); `index` is every chunk of the candidate (built once if raw), or
    with `sending` every unit that can be sent, on which every measure is then taken. With
    `with_causes` False no span's cause is looked for (a plan's ceiling needs none). `views`:
    each query's view under these settings, when the caller has them (`QueryView.seen`)."""
    params = MetricSettings.of(settings)
    chunk_index = index if isinstance(index, ChunkIndex) else ChunkIndex.build(index)
    tokens = as_counter(count_tokens, texts)
    _check_names(measures)
    if views is None:
        per_query, causes = measure_queries(
            queries, ranked_by_query, chunk_index, params, tokens, measures, sending,
            with_causes, name,
        )  # fmt: skip
    else:
        per_query, causes = measure_views(views, params, measures, with_causes)
    facets = {q.id: QueryFacets.of(q) for q in queries}
    return CandidateResult(
        name=name,
        settings=params,
        measures=tuple(m.name for m in measures),
        facets=facets,
        per_query=per_query,
        aggregates=reduce_all(measures, per_query, per_query),
        breakdowns=breakdowns(measures, per_query, facets),
        span_causes=causes,
    )


def measure_queries(
    queries: Sequence[Query],
    ranked_by_query: Mapping[str, Sequence[Ranked]],
    index: ChunkIndex,
    params: MetricSettings,
    tokens: TokenCounter,
    measures: Sequence[Measure],
    sending: Sending | None = None,
    with_causes: bool = True,
    name: str = "",
) -> tuple[PerQuery, SpanCauses]:
    """Each query's value of each measure, and its spans' causes: `evaluate` without the
    aggregates and breakdowns (a plan's ceiling reduces them itself, §17)."""
    for query in queries:
        if query.id not in ranked_by_query:
            raise ValueError(f"no ranked list for query {query.id} in candidate {name!r}")
    views = [QueryView(q, ranked_by_query[q.id], index, params, tokens, sending) for q in queries]
    return measure_views(views, params, measures, with_causes)


def measure_views(
    views: Sequence[QueryView],
    params: MetricSettings,
    measures: Sequence[Measure],
    with_causes: bool = True,
) -> tuple[PerQuery, SpanCauses]:
    """`measure_queries` over views in hand (each under `params`)."""
    per_query: PerQuery = {}
    causes: SpanCauses = {}
    for view in views:
        if view.settings != params:
            raise ValueError(f"query {view.query.id}'s view is not under these settings")
        query = view.query
        per_query[query.id] = {m.name: m.value(view) for m in measures}
        causes[query.id] = view.span_causes if query.answerable and with_causes else ()
    return per_query, causes


def _check_names(measures: Sequence[Measure]) -> None:
    names = [m.name for m in measures]
    if len(set(names)) != len(names):
        raise ValueError(f"measure names must be unique, got {names}")

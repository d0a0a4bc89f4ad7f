"""Label distribution: the counts a team watches so one kind of question does not dominate."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from labeler.core.store import QueryRow
from labeler.core.values import Query


@dataclass(frozen=True)
class LabelStats:
    queries: int
    """Number of queries."""
    spans: int
    """Number of evidence spans."""
    abstain: int
    """Abstention queries."""
    multi_span: int
    """Queries with more than one span."""
    by_status: dict[str, int]
    """Queries per status."""
    by_boundary: dict[str, int]
    """Queries per boundary pattern."""
    by_slice: dict[str, int]
    """Queries per slice (a query counts once in each of its slices)."""
    by_document: dict[str, int]
    """Spans per document."""
    by_annotator: dict[str, int]
    """Queries per annotator (who created them)."""
    work: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per annotator: queries created, spans added, queries marked reviewed, adjudication
    decisions, stale spans resolved (from the store: `store.work_by_annotator()`; empty
    when counted from queries alone)."""


def span_count(q: Query | QueryRow) -> int:
    return q.spans if isinstance(q, QueryRow) else len(q.evidence)


def label_stats(
    queries: Iterable[Query | QueryRow],
    by_document: Mapping[str, int] | None = None,
    work: Mapping[str, Mapping[str, int]] | None = None,
) -> LabelStats:
    """Counts over queries, or over the store's light rows plus its per-document span counts
    (`store.query_rows()`, `store.doc_span_counts()`), which stays quick at 100,000 queries."""
    qs = list(queries)
    if by_document is None:
        by_document = Counter(s.doc for q in qs if isinstance(q, Query) for s in q.evidence)

    def count(values: Iterable[str]) -> dict[str, int]:
        return dict(sorted(Counter(values).items(), key=lambda kv: (-kv[1], kv[0])))

    return LabelStats(
        queries=len(qs),
        spans=sum(span_count(q) for q in qs),
        abstain=sum(q.abstain for q in qs),
        multi_span=sum(span_count(q) > 1 for q in qs),
        by_status=count(q.status.value for q in qs),
        by_boundary=count(q.boundary.value for q in qs),
        by_slice=count(s for q in qs for s in q.slices),
        by_document=dict(sorted(by_document.items(), key=lambda kv: (-kv[1], kv[0]))),
        by_annotator=count(q.annotator or "(unknown)" for q in qs),
        work={who: dict(done) for who, done in (work or {}).items()},
    )

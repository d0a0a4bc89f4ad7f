"""What the store hands out besides `Query` and `Span`, and the one place rows meet values.

Every table row is turned into a frozen value here (and values into rows), so the rest
of the store passes values around and no caller ever sees a raw row.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from labeler.core.errors import SpanlabError
from labeler.core.store import cells
from labeler.core.values import Boundary, Query, Span, Status

QUERY_COLUMNS = (
    "id", "text", "abstain", "boundary", "slices", "notes", "status", "annotator", "created",
    "updated", "facts", "revision",
)  # fmt: skip

DecisionKind = Literal["accept", "orphan", "undo"]
EVENT: dict[DecisionKind, str] = {
    "accept": "review-accepted",
    "orphan": "review-orphaned",
    "undo": "review-undone",
}
"""Event kinds; the event payload keeps the whole span as it was before the decision."""


class QueryRow(NamedTuple):
    """A query as a list shows it: its fields and how many spans it has, not the spans.

    A tuple, not a `Query`: the label screen holds one per query, 100,000 of them.
    """

    id: str
    """The query id."""
    text: str
    """The question."""
    abstain: bool
    """Whether the corpus holds no answer."""
    boundary: Boundary
    """The boundary pattern it exercises."""
    slices: tuple[str, ...]
    """Slices it belongs to."""
    notes: str
    """Free notes."""
    status: Status
    """Draft, labelled or reviewed."""
    annotator: str
    """Who created it."""
    spans: int
    """How many evidence spans it has."""

    @classmethod
    def of(cls, q: Query) -> QueryRow:
        return cls(q.id, q.text, q.abstain, q.boundary, q.slices, q.notes, q.status,
                   q.annotator, len(q.evidence))  # fmt: skip


class Version(NamedTuple):
    """One annotator's blind version of a query: the whole annotation (double annotation, §3).

    Written with a field left None, the version takes the query's own value for it (an
    import that brings only spans); read back, every field is filled.
    """

    annotator: str
    """Whose version."""
    abstain: bool
    """They found no answer in the corpus."""
    spans: tuple[Span, ...]
    """Their evidence, in document order."""
    boundary: Boundary | None = None
    """Their boundary pattern."""
    slices: tuple[str, ...] | None = None
    """Their slices."""
    notes: str | None = None
    """Their notes."""
    status: Status = Status.LABELLED
    """Draft or labelled (a version is never reviewed: the adjudicated query is)."""
    revision: int = 0
    """Bumped by every change of the version (0: not read from the store)."""


VERSION_FIELDS = ("boundary", "slices", "abstain", "notes", "status")
"""The query fields a blind version holds for itself; text and id stay the query's."""


@dataclass(frozen=True)
class Decision:
    """One row of `review_decisions`: who decided what, when, on which corpora."""

    id: int
    """Row id; `undo` takes it."""
    kind: DecisionKind
    """accept, orphan or undo."""
    span_id: int
    """The span decided on."""
    query_id: str
    """Its query."""
    doc: str
    """Its document."""
    old_start: int
    """Start in the text the span was drawn on."""
    old_end: int
    """End in that text."""
    old_quote: str
    """The quote as it was drawn."""
    new_start: int | None
    """Start in the new text (None for orphan)."""
    new_end: int | None
    """End in the new text (None for orphan)."""
    old_corpus_hash: str
    """The corpus hash the store was bound to."""
    new_corpus_hash: str
    """The corpus hash of the folder when deciding."""
    annotator: str
    """Who decided."""
    at: str
    """ISO-8601 UTC time of the decision."""


def utcnow() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


SPAN_ROW = ("doc", "start", "end", "quote", "prefix", "suffix", "doc_hash", "annotator",
            "created", "id", "grp")  # fmt: skip
"""A span's columns in `Span`'s order."""


def span_from_row(row: Mapping[str, Any]) -> Span:
    try:  # as spanlab writes it; a row written by hand goes the checked way, naming a column
        return Span(*(row[c] for c in SPAN_ROW))
    except (SpanlabError, TypeError, ValueError):
        return _checked_span(row)


def _checked_span(row: Mapping[str, Any]) -> Span:
    key = row["id"]

    def text(column: str) -> str:
        return cells.typed(str, "spans", key, column, row[column])

    def make() -> Span:
        start, end = (cells.typed(int, "spans", key, c, row[c]) for c in ("start", "end"))
        return Span(doc=text("doc"), start=start, end=end, quote=text("quote"),
                    prefix=text("prefix"), suffix=text("suffix"), doc_hash=text("doc_hash"),
                    annotator=text("annotator"), created=text("created"), id=key,
                    group=_group(row, key))  # fmt: skip

    return cells.built(make, "spans", key)


def _group(row: Mapping[str, Any], key: object) -> int | None:
    value = row["grp"]
    return None if value is None else cells.typed(int, "spans", key, "grp", value)


def query_from_row(row: Mapping[str, Any], spans: Iterable[Span]) -> Query:
    evidence = tuple(spans)
    try:  # as spanlab writes it; a row written by hand goes the checked way, naming a column
        return Query(row["id"], row["text"], bool(row["abstain"]), Boundary(row["boundary"]),
                     tuple(_names(row["slices"])), row["notes"], Status(row["status"]),
                     row["annotator"], row["created"], row["updated"], evidence,
                     revision=row["revision"], facts=cells.facts_of(row["facts"]),
                     stored=True)  # fmt: skip
    except (SpanlabError, TypeError, ValueError):
        return _checked_query(row, evidence)


def _names(text: str) -> list[str]:
    value = json.loads(text)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of names")
    return value


def _checked_query(row: Mapping[str, Any], spans: Iterable[Span]) -> Query:
    key = row["id"]

    def text(column: str) -> str:
        return cells.typed(str, "queries", key, column, row[column])

    def make() -> Query:
        return Query(
            id=text("id"),
            text=text("text"),
            abstain=bool(cells.typed(int, "queries", key, "abstain", row["abstain"])),
            boundary=cells.member(Boundary, "queries", key, "boundary", row["boundary"]),
            slices=cells.slices("queries", key, row["slices"]),
            notes=text("notes"),
            status=cells.member(Status, "queries", key, "status", row["status"]),
            annotator=text("annotator"),
            created=text("created"),
            updated=text("updated"),
            evidence=tuple(spans),
            revision=cells.typed(int, "queries", key, "revision", row["revision"]),
            facts=cells.facts("queries", key, row["facts"]),
            stored=True,
        )

    return cells.built(make, "queries", key)


def decision_from_row(row: Mapping[str, Any]) -> Decision:
    return Decision(
        id=row["id"],
        kind=row["decision"],
        span_id=row["span_id"],
        query_id=row["query_id"],
        doc=row["old_doc"],
        old_start=row["old_start"],
        old_end=row["old_end"],
        old_quote=row["old_quote"],
        new_start=row["new_start"],
        new_end=row["new_end"],
        old_corpus_hash=row["old_corpus_hash"],
        new_corpus_hash=row["new_corpus_hash"],
        annotator=row["annotator"],
        at=row["at"],
    )


def query_row(q: Query) -> dict[str, Any]:
    return {
        "id": q.id,
        "text": q.text,
        "abstain": int(q.abstain),
        "boundary": q.boundary.value,
        "slices": json.dumps(list(q.slices)),
        "notes": q.notes,
        "status": q.status.value,
        "annotator": q.annotator,
        "created": q.created,
        "updated": q.updated,
        "facts": cells.facts_text(q.facts),
        "revision": q.revision or 1,
    }


def span_fields(s: Span) -> dict[str, Any]:
    """A span's own columns: everything but its row id and its query."""
    return {
        "doc": s.doc,
        "start": s.start,
        "end": s.end,
        "quote": s.quote,
        "prefix": s.prefix,
        "suffix": s.suffix,
        "doc_hash": s.doc_hash,
        "annotator": s.annotator,
        "created": s.created,
        "grp": s.group,
    }


def span_row(query_id: str, s: Span) -> dict[str, Any]:
    row: dict[str, Any] = {"query_id": query_id, **span_fields(s)}
    if s.id is not None:
        row["id"] = s.id
    return row

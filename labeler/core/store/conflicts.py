"""Compare-and-set refusals: what an editor saw no longer holds, and who changed it (§3).

A refusal names the query, the field or edges, who changed them and when, read from the
audit log, so a screen or a script can say it in one line and offer to reload or reapply.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from enum import Enum
from typing import Any

from labeler.core.errors import StoreError

FIELDS = ("text", "boundary", "slices", "abstain", "notes", "status", "facts")
"""The query fields a form edits (facts: the answer labels, §23, the query's own)."""


@dataclass
class ConflictError(StoreError):
    """Another writer changed what this edit was based on; nothing was written."""

    query_id: str = ""
    """The query concerned."""
    what: str = ""
    """The field, or `edges of span N`, that changed."""
    who: str = ""
    """Who changed it last ('' when the log does not say: an import)."""
    at: str = ""
    """When (ISO-8601 UTC, '' when unknown)."""


def show(value: Any) -> str:
    """A field value as a message shows it (facts: `[14 days | two weeks; card]`)."""
    if isinstance(value, tuple | list) and value and all(isinstance(v, tuple) for v in value):
        return "[" + "; ".join(" | ".join(str(p) for p in v) for v in value) + "]"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, Enum):  # a StrEnum is a str too, whose repr is `<Status.X: 'x'>`
        return str(value.value)
    return repr(value) if isinstance(value, str) else str(value)


def last_change(
    conn: sqlite3.Connection, query_id: str, *, field: str | None = None, span: int | None = None
) -> tuple[str, str]:
    """(who, when) of the newest logged edit of `field` (or span `span`, -1: any span)."""
    rows = conn.execute(
        "SELECT annotator, at, kind, payload FROM events WHERE query_id = ? ORDER BY id DESC",
        (query_id,),
    )
    for who, at, kind, payload in rows:
        data = json.loads(payload)
        if field is not None and field in data.get("changes", {}):
            return str(who), str(at)
        if field is not None and kind in ("query-added", "query-restored", "query-imported"):
            return str(who), str(at)
        if span is not None and (data.get("span") == span or (span < 0 and "span" in data)):
            return str(who), str(at)
    return "", ""


def refusal(
    conn: sqlite3.Connection,
    query_id: str,
    what: str,
    detail: str,
    *,
    field: str | None = None,
    span: int | None = None,
) -> ConflictError:
    """The error for a compare-and-set that failed, with who and when from the log."""
    who, at = last_change(conn, query_id, field=field, span=span)
    by = f" by {who}" if who else " by another writer"
    when = f" at {at[:19].replace('T', ' ')} UTC" if at else ""
    return ConflictError(
        f"{query_id}: {what} was changed{by}{when} ({detail}); nothing was saved",
        key=field or "span",
        hint="reload to see it, or reapply your change over it",
        query_id=query_id,
        what=what,
        who=who,
        at=at,
    )


def gone(query_id: str, conn: sqlite3.Connection) -> ConflictError:
    """The error for an edit of a query that another writer deleted."""
    row = conn.execute("SELECT annotator, at FROM retired_ids WHERE id = ?", (query_id,)).fetchone()
    if row is None:
        return ConflictError(f"no query {query_id!r}", key="query", query_id=query_id)
    return ConflictError(
        f"{query_id} was deleted by {row[0]} at {row[1][:19].replace('T', ' ')} UTC; "
        "nothing was saved",
        key="query",
        query_id=query_id,
        what="the query",
        who=row[0],
        at=row[1],
    )

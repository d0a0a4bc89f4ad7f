"""Who may mark a query reviewed: only someone who did not write it (§3, issue 15).

The rule lives in the store, the one writer of its tables, so the app, scripts and the
CLI all obey it. A query's authors are whoever created it and whoever drew any of its
spans or holds a version of it (double annotation): all of them are recorded rows.
"""

from __future__ import annotations

import sqlite3

from labeler.core.errors import LabelError, StoreError


class SelfReview(StoreError, LabelError):
    """An author asked to mark their own query reviewed: a label rule the store keeps."""


def authorship(conn: sqlite3.Connection, query_id: str, creator: str, who: str) -> str | None:
    """How `who` wrote the query (`created it`, `drew its evidence`, …), None: they did not."""
    if who == creator:
        return "created it"
    version = conn.execute(
        "SELECT 1 FROM versions WHERE query_id = ? AND annotator = ? LIMIT 1", (query_id, who)
    ).fetchone()
    if version is not None:
        return "labelled a version of it"
    drew = conn.execute(
        "SELECT 1 FROM spans WHERE query_id = ? AND annotator = ? LIMIT 1", (query_id, who)
    ).fetchone()
    return "drew its evidence" if drew is not None else None


def refuse_self_review(conn: sqlite3.Connection, query_id: str, creator: str, who: str) -> None:
    """Raise SelfReview when `who` is one of the query's authors."""
    how = authorship(conn, query_id, creator, who)
    if how is not None:
        raise SelfReview(
            f"{query_id}: {who} {how}; someone else must mark it reviewed",
            key="status",
            hint="ask another annotator to review it",
        )

"""Who may mark a query reviewed: only someone who made none of its evidence (§3, §15).

The rule lives in the store, the one writer of its tables, so the app, scripts and the CLI
all obey it. Authors are who made the evidence, as recorded rows say: who drew any of its
spans (any version), holds a version of it, or set its abstain flag. Creating or importing
the query does not count: the lead who imported drafts others labelled may decide them.
"""

from __future__ import annotations

import json
import sqlite3

from labeler.core.errors import LabelError, StoreError


class SelfReview(StoreError, LabelError):
    """An author asked to mark their own query reviewed: a label rule the store keeps."""


def authorship(conn: sqlite3.Connection, query_id: str, who: str) -> str | None:
    """How `who` made the query's evidence (`drew its evidence`, …), None: they did not."""
    version = conn.execute(
        "SELECT 1 FROM versions WHERE query_id = ? AND annotator = ? LIMIT 1", (query_id, who)
    ).fetchone()
    if version is not None:
        return "labelled a version of it"
    drew = conn.execute(
        "SELECT 1 FROM spans WHERE query_id = ? AND annotator = ? LIMIT 1", (query_id, who)
    ).fetchone()
    if drew is not None:
        return "drew its evidence"
    return "marked it abstain" if abstained_by(conn, query_id) == who else None


def abstained_by(conn: sqlite3.Connection, query_id: str) -> str | None:
    """Who said the query has no evidence: the last logged edit of its abstain flag, or its
    creator in spanlab (`query-added`); None when it is not abstain or the log does not say
    (an import: the file's annotators decided it)."""
    row = conn.execute("SELECT abstain FROM queries WHERE id = ?", (query_id,)).fetchone()
    if row is None or not row[0]:
        return None
    events = conn.execute(
        "SELECT annotator, kind, payload FROM events WHERE query_id = ? "
        "AND kind IN ('query-updated', 'query-added') ORDER BY id DESC",
        (query_id,),
    )
    for annotator, kind, payload in events:
        if kind == "query-added" or "abstain" in json.loads(payload).get("changes", {}):
            return str(annotator)
    return None


def refuse_self_review(conn: sqlite3.Connection, query_id: str, who: str) -> None:
    """Raise SelfReview when `who` made any of the query's evidence."""
    how = authorship(conn, query_id, who)
    if how is not None:
        raise SelfReview(
            f"{query_id}: {who} {how}; someone else must mark it reviewed",
            key="status",
            hint="ask a lead or another annotator to review it",
        )

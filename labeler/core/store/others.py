"""Acts on another person's query (§20): deleting, rewording and putting back a query someone
else made are a lead's, asked here, in the store, so the CLI and every screen get the same
answer; a delete keeps the query's assignments in its event, so its undo restores them.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from labeler.core.team.roles import Act, Member

MAX_KEPT = 10_000
"""Most assignments one delete event keeps (a query is on at most one queue per member)."""


def require_for(member: Member | None, owner: str, name: str, act: Act) -> None:
    """Refuse `act` on a query `owner` made when `name` (the edit's name) is someone else
    and `member` (the store's, set by whoever opened it for a person) may not do it."""
    if member is not None and owner != name:
        member.require(act)


def assignments(conn: sqlite3.Connection, query_id: str) -> list[list[str]]:
    """The query's assignments as [annotator, assigned by, at], for its delete event."""
    rows = conn.execute(
        "SELECT annotator, assigned_by, at FROM assignments WHERE query_id = ? ORDER BY 1",
        [query_id],
    ).fetchall()
    return [[str(a), str(b), str(c)] for a, b, c in rows[:MAX_KEPT]]


def put_back(conn: sqlite3.Connection, query_id: str) -> int:
    """Restore the assignments the query's latest delete event kept; how many came back.
    A payload that is not what a delete writes (a hand-edited row) brings none back."""
    row = conn.execute(
        "SELECT payload FROM events WHERE kind = 'query-deleted' AND query_id = ? "
        "ORDER BY id DESC LIMIT 1",
        [query_id],
    ).fetchone()
    kept = _kept(row[0]) if row is not None else []
    done = conn.executemany(  # its rowcount leaves out rows the digests' TEMP triggers note
        "INSERT OR IGNORE INTO assignments(query_id, annotator, assigned_by, at) "
        "VALUES (?, ?, ?, ?)",
        [(query_id, *entry) for entry in kept],
    )
    return max(done.rowcount, 0)


def _kept(payload: Any) -> list[list[str]]:
    try:
        found = json.loads(payload).get("assigned", [])
    except (TypeError, ValueError, AttributeError, RecursionError):
        return []
    if not isinstance(found, list):
        return []
    good = [e for e in found[:MAX_KEPT] if isinstance(e, list) and len(e) == 3]
    return [e for e in good if all(isinstance(x, str) for x in e)]

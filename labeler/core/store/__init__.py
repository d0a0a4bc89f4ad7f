"""The working label store: SQLite through sqlite-utils, every edit committed at once (§3).

The store is bound to a corpus hash and keeps the canonical text of every document a span
was drawn on. `Store` is one class built in layers, a module each: `connection` (opening,
the write transaction), `reads`, `edits` (queries added, the audit log), `query_edits`
(changes and deletes, compare-and-set), `span_edits`, `reviews` (binding and review
decisions), `versions` (double annotation), `adjudication`; `authors` keeps the
rule that only someone else marks a query reviewed. They and the migrations
in `labeler.core.store.schema` are the only code that writes the store's tables (design §1);
`tests/core/test_store_writes.py` greps for any other.
"""

from labeler.core.store.adjudication import Decided, Verdict
from labeler.core.store.connection import BUSY_TIMEOUT_MS
from labeler.core.store.rows import Decision, DecisionKind, QueryRow, Version, utcnow


class Store(Decided):
    """Queries and spans in one SQLite file (or in memory, for tests)."""


__all__ = [
    "BUSY_TIMEOUT_MS",
    "Decision",
    "DecisionKind",
    "QueryRow",
    "Store",
    "Verdict",
    "Version",
    "utcnow",
]

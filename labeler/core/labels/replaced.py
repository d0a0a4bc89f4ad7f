"""What an import that replaces queries takes away, said and logged (§15).

`labels import --replace` overwrites stored queries whole; someone may have labelled them
since. Each replaced query gets an audit-log entry naming the spans it removed and whose
they were, so the open app and the command can say so, and undo can say who removed them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from labeler.core.store.conflicts import FIELDS
from labeler.core.values import Query, Span

if TYPE_CHECKING:
    import sqlite_utils

    from labeler.core.store import Store


def _place(s: Span) -> tuple[str, int, int]:
    return (s.doc, s.start, s.end)


def removed_spans(old: Query, new: Query) -> list[Span]:
    """The stored spans of `old` that `new` does not hold at the same place."""
    kept = {_place(s) for s in new.evidence}
    return [s for s in old.evidence if _place(s) not in kept]


def describe(query_id: str, removed: Sequence[Span]) -> str:
    """`q-0023: replaced; removes 1 span of alice's (a.md 10..40)`."""
    if not removed:
        return f"{query_id}: replaced; no span removed"
    whose = Counter(s.annotator or "unknown" for s in removed)
    owners = ", ".join(f"{n} of {who}'s" for who, n in sorted(whose.items()))
    first = removed[0]
    return (f"{query_id}: replaced; removes {len(removed)} span(s) ({owners}), first "
            f"{first.doc} {first.start}..{first.end}")  # fmt: skip


def log_replaced(
    store: Store,
    db: sqlite_utils.Database,
    before: Mapping[str, Query],
    after: Sequence[Query],
    *,
    annotator: str,
) -> list[str]:
    """Inside the import's transaction: one `query-replaced` event per query of `after`
    that replaces one in `before`, and one line each saying what it removes."""
    said = []
    for new in after:
        old = before.get(new.id)
        if old is None:
            continue
        gone = removed_spans(old, new)
        changes = {f: str(getattr(new, f)) for f in FIELDS if getattr(old, f) != getattr(new, f)}
        store.log_event(
            db, "query-replaced", annotator, new.id, span=-1, changes=changes,
            removed=[{"doc": s.doc, "start": s.start, "end": s.end, "annotator": s.annotator}
                     for s in gone],
            removed_ids=[s.id for s in gone if s.id is not None],
        )  # fmt: skip
        said.append(describe(new.id, gone))
    return said

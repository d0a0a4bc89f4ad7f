"""A store row written by hand is outside input (§20): each column is checked as it becomes
a value, and a bad one is refused naming its table, row and column, never a traceback.

Long texts are cut in SQL (`substr`) before Python sees them, so a 300 MB question costs
no 300 MB string; the value's own check then refuses it as over its limit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, TypeVar

from labeler.core.display import shown
from labeler.core.errors import SpanlabError, StoreError
from labeler.core.values import MAX_NOTES, MAX_QUERY_TEXT, Span

E = TypeVar("E", bound=Enum)
T = TypeVar("T")

TEXT = f"substr(text, 1, {MAX_QUERY_TEXT + 1}) AS text"
"""The question, cut one past its limit: enough for the limit to refuse it."""
NOTES = f"substr(notes, 1, {MAX_NOTES + 1}) AS notes"
"""The notes, likewise."""


class RowError(StoreError):
    """A row spanlab did not write so, named by table, row and column."""


def bad(table: str, key: object, column: str, why: str) -> RowError:
    """The one-line refusal of a row spanlab did not write so."""
    return RowError(
        f"table {table}, row {shown(str(key), lines=False)}, column {column}: {why}",
        hint="a row written outside spanlab: `spanlab labels audit` names them",
    )


def slices(table: str, key: object, text: Any) -> tuple[str, ...]:
    """A JSON list of names, as spanlab writes slices."""
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        value = None
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise bad(table, key, "slices", "not a JSON list of names")
    return tuple(value)


def member(kind: type[E], table: str, key: object, column: str, value: Any) -> E:
    """One of an enum's values (a boundary pattern, a status)."""
    try:
        return kind(value)
    except ValueError:
        known = ", ".join(str(k.value) for k in kind)
        raise bad(table, key, column, f"{shown(str(value)[:40], lines=False)!r} is not one "
                  f"of {known}") from None  # fmt: skip


def typed(kind: type[T], table: str, key: object, column: str, value: Any) -> T:
    """A column of the type spanlab writes there (text, integer)."""
    if not isinstance(value, kind) or isinstance(value, bool):
        raise bad(table, key, column, f"holds a {type(value).__name__}, not {kind.__name__}")
    return value


def built(make: Callable[[], T], table: str, key: object) -> T:
    """A value from checked columns; the value's own refusal names the column it concerns."""
    try:
        return make()
    except RowError:
        raise
    except SpanlabError as exc:
        raise bad(table, key, exc.key or "?", exc.message) from None
    except (TypeError, ValueError) as exc:
        raise bad(table, key, "?", str(exc)) from None


def span(row: Sequence[Any]) -> Span:
    """A span from `SPAN_SELECT`'s columns (query_id first, id last), each checked."""
    key = row[10]
    for column, at in (("start", 2), ("end", 3)):
        typed(int, "spans", key, column, row[at])
    for column, at in (("doc", 1), ("quote", 4), ("doc_hash", 7)):
        typed(str, "spans", key, column, row[at])
    return built(lambda: Span(*row[1:11]), "spans", key)

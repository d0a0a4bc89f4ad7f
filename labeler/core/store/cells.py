"""A store row written by hand is outside input (§20): a row that fails to become a value
is checked column by column, and refused naming its table, row and column, never a
traceback. Rows as spanlab writes them take the fast path; export asks SQLite for odd rows.

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
from labeler.core.typed import MAX_INT
from labeler.core.values import MAX_NOTES, MAX_QUERY_TEXT, Boundary, Query, Span, Status

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


def facts_of(text: Any) -> tuple[tuple[str, ...], ...]:
    """A query's facts (§23) from the JSON spanlab writes, a list of lists of phrasings;
    ValueError for anything else (the checked path, `facts`, names it)."""
    if text == "[]":
        return ()
    value = json.loads(text) if isinstance(text, str) else None
    if not isinstance(value, list) or not all(
        isinstance(f, list) and all(isinstance(p, str) for p in f) for f in value
    ):
        raise ValueError("not a JSON list of lists of phrasings")
    return tuple(tuple(f) for f in value)


def facts(table: str, key: object, text: Any) -> tuple[tuple[str, ...], ...]:
    """`facts_of`, refused naming the row and column (the value checks the rest)."""
    try:
        return facts_of(text)
    except ValueError:
        raise bad(table, key, "facts", "not a JSON list of lists of phrasings") from None


def facts_text(found: tuple[tuple[str, ...], ...]) -> str:
    """The column's text for `found`: what `facts_of` reads back."""
    return json.dumps([list(f) for f in found], ensure_ascii=False) if found else "[]"


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
    """A span from `SPAN_SELECT`'s columns (query_id first, then id and group), each checked."""
    key = row[10]
    if row[11] is not None:
        typed(int, "spans", key, "grp", row[11])
    for column, at in (("start", 2), ("end", 3)):
        typed(int, "spans", key, column, row[at])
    for column, at in (("doc", 1), ("quote", 4), ("doc_hash", 7)):
        typed(str, "spans", key, column, row[at])
    return built(lambda: Span(*row[1:12]), "spans", key)


ODD_QUERIES = (
    "SELECT id FROM queries WHERE typeof(id) != 'text' OR typeof(text) != 'text' "
    "OR typeof(notes) != 'text' OR typeof(abstain) != 'integer' "
    f"OR length(text) > {MAX_QUERY_TEXT} OR length(notes) > {MAX_NOTES} "
    f"OR boundary NOT IN ({', '.join(repr(b.value) for b in Boundary)}) "
    f"OR status NOT IN ({', '.join(repr(x.value) for x in Status)}) "
    # CASE, not OR: json_type() of a text that is not JSON is an error, not false.
    "OR CASE WHEN typeof(slices) != 'text' THEN 1 WHEN NOT json_valid(slices) THEN 1 "
    "WHEN json_type(slices) != 'array' THEN 1 "
    "ELSE EXISTS (SELECT 1 FROM json_each(slices) WHERE type != 'text') END "
    "OR facts IS NOT '[]'"  # few queries carry facts: each is checked whole, in Python
)
"""Query rows spanlab would not have written (a row written by hand), and those with facts."""
ODD_SPANS = (
    "SELECT 1 FROM spans WHERE version = '' AND (typeof(start) != 'integer' OR "
    "typeof(\"end\") != 'integer' OR typeof(doc) != 'text' OR typeof(quote) != 'text' OR "
    "typeof(prefix) != 'text' OR typeof(suffix) != 'text' OR typeof(query_id) != 'text' OR "
    f"(grp IS NOT NULL AND (typeof(grp) != 'integer' OR grp < 1 OR grp > {MAX_INT}))) "
    "LIMIT 1"
)
"""Any evidence row spanlab would not have written."""
SPAN_COLUMNS = ("query_id", "doc", "start", "end", "quote", "prefix", "suffix")
SPAN_KINDS: tuple[type, ...] = (str, str, int, int, str, str, str)


def group(key: object, value: Any) -> None:
    """A span's group as spanlab writes it: NULL or a positive integer."""
    if value is not None and not 1 <= typed(int, "spans", key, "grp", value) <= MAX_INT:
        raise bad("spans", key, "grp", f"holds {value}, not a positive integer up to {MAX_INT:,}")


def label_row(q: tuple[Any, ...]) -> None:
    """An exported query row as spanlab writes it, else refused naming the column."""
    key = q[0]
    for column, value, limit in (("id", q[0], 0), ("text", q[1], MAX_QUERY_TEXT),
                                 ("notes", q[6], MAX_NOTES)):  # fmt: skip
        typed(str, "queries", key, column, value)
        if limit and len(value) > limit:
            raise bad("queries", key, column, f"over the limit of {limit:,} characters")
    typed(int, "queries", key, "abstain", q[2])
    member(Boundary, "queries", key, "boundary", q[3])
    member(Status, "queries", key, "status", q[5])
    slices("queries", key, q[4])
    built(lambda: Query(str(key), "check", bool(q[2]), facts=facts("queries", key, q[7])),
          "queries", key)  # fmt: skip

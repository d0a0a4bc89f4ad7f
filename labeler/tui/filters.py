"""The query list's filter, typed as one line: `status:draft pattern:cond slice:tables refund`.

One line of text is the quickest filter to use from a keyboard over SSH and fits a narrow
pane. Field values may be abbreviated to any unambiguous prefix; the remaining words must
all appear in the query's id, text, notes, slices or pattern.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, TypeVar

from labeler.core.errors import LabelError
from labeler.core.values import Boundary, Query, Status

E = TypeVar("E", bound=StrEnum)

FIELDS = {
    "status": "status",
    "s": "status",
    "pattern": "pattern",
    "p": "pattern",
    "slice": "slice",
    "is": "is",
    "by": "by",
}
"""Accepted field names (and short forms) before the colon."""


def _pick(kind: type[E], value: str, key: str) -> E:
    """The member named by `value` or by a unique prefix of it."""
    found = [m for m in kind if m.value == value] or [m for m in kind if m.value.startswith(value)]
    if len(found) != 1:
        allowed = ", ".join(m.value for m in kind)
        raise LabelError(f"{key}:{value} matches {len(found)} of: {allowed}", key=key)
    return found[0]


@dataclass(frozen=True)
class QueryFilter:
    """What the query list shows; every part given must hold."""

    status: Status | None = None
    """Only queries with this status."""
    pattern: Boundary | None = None
    """Only queries exercising this boundary pattern."""
    slice: str | None = None
    """Only queries carrying this slice."""
    abstain: bool | None = None
    """`is:abstain` or `is:answerable`."""
    annotator: str | None = None
    """Only queries created by this annotator (`by:name`)."""
    words: tuple[str, ...] = ()
    """Lower-cased words that must all appear in the id, text, notes, slices or pattern."""

    @classmethod
    def parse(cls, line: str) -> QueryFilter:
        """Read a filter line; unknown fields and ambiguous values raise LabelError."""
        found = cls()
        words: list[str] = []
        for token in line.split():
            field, sep, value = token.partition(":")
            if not sep or not value:
                words.append(token.lower())
                continue
            name = FIELDS.get(field.lower())
            if name is None:
                raise LabelError(f"unknown filter {field!r} (status, pattern, slice, is, by)")
            found = replace(found, **cls._part(name, value))
        return replace(found, words=tuple(words))

    @staticmethod
    def _part(name: str, value: str) -> dict[str, Any]:
        if name == "status":
            return {"status": _pick(Status, value.lower(), "status")}
        if name == "pattern":
            return {"pattern": _pick(Boundary, value.lower(), "pattern")}
        if name == "is":
            if value.lower() not in ("abstain", "answerable"):
                raise LabelError(f"is:{value} (is:abstain or is:answerable)", key="is")
            return {"abstain": value.lower() == "abstain"}
        if name == "by":
            return {"annotator": value}
        return {"slice": value}

    @property
    def empty(self) -> bool:
        return self == QueryFilter()

    def matches(self, q: Query) -> bool:
        if self.status is not None and q.status is not self.status:
            return False
        if self.pattern is not None and q.boundary is not self.pattern:
            return False
        if self.slice is not None and self.slice not in q.slices:
            return False
        if self.abstain is not None and q.abstain is not self.abstain:
            return False
        if self.annotator is not None and q.annotator != self.annotator:
            return False
        haystack = f"{q.id}\n{q.text}\n{q.notes}\n{' '.join(q.slices)}\n{q.boundary}".lower()
        return all(w in haystack for w in self.words)

    def apply(self, queries: Iterable[Query]) -> list[Query]:
        return [q for q in queries if self.matches(q)]

"""The query list's filter, typed as one line: `status:draft pattern:cond slice:tables refund`.

One line of text is the quickest filter to use from a keyboard over SSH and fits a narrow
pane. Field values may be abbreviated to any unambiguous prefix; the remaining words must
all appear in the query's id, text, notes, slices or pattern. It reads full queries and
the store's light rows alike, and takes a ready-made haystack so 100,000 rows filter fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from labeler.core.errors import LabelError
from labeler.core.values import Boundary, Status

E = TypeVar("E", bound=StrEnum)


class Filterable(Protocol):
    """What a filter reads: a `Query` and a store `QueryRow` both have it."""

    @property
    def id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def notes(self) -> str: ...
    @property
    def slices(self) -> tuple[str, ...]: ...
    @property
    def boundary(self) -> Boundary: ...
    @property
    def status(self) -> Status: ...
    @property
    def abstain(self) -> bool: ...
    @property
    def annotator(self) -> str: ...


Q = TypeVar("Q", bound=Filterable)


def haystack(q: Filterable) -> str:
    """The lower-cased text the filter's words are looked for in."""
    return f"{q.id}\n{q.text}\n{q.notes}\n{' '.join(q.slices)}\n{q.boundary}".lower()


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

    def matches(self, q: Filterable) -> bool:
        return self.keeps(q, haystack(q) if self.words else "")

    def keeps(self, q: Filterable, hay: str) -> bool:
        """`matches`, given the query's `haystack` (worked out once by the caller)."""
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
        return not self.words or all(w in hay for w in self.words)

    def select(self, queries: Iterable[Q], hay: Mapping[str, str]) -> list[Q]:
        """The queries kept, in order, given each one's `haystack` by id.

        One tight pass per part of the filter, each over what the last one kept, and no
        object made per query: 100,000 rows take milliseconds, not a tenth of a second.
        """
        kept = list(queries)
        if (status := self.status) is not None:
            kept = [q for q in kept if q.status is status]
        if (pattern := self.pattern) is not None:
            kept = [q for q in kept if q.boundary is pattern]
        if (name := self.slice) is not None:
            kept = [q for q in kept if name in q.slices]
        if (abstain := self.abstain) is not None:
            kept = [q for q in kept if q.abstain is abstain]
        if (who := self.annotator) is not None:
            kept = [q for q in kept if q.annotator == who]
        for word in self.words:
            kept = [q for q in kept if word in hay[q.id]]
        return kept

    def apply(self, queries: Iterable[Q]) -> list[Q]:
        return [q for q in queries if self.matches(q)]

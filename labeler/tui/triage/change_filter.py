"""The query list's filter (design §11): `slice:critical pattern:cond doc:shipping both-miss
split parcel` — fields, status and cause words, and words of the id or the query text.

Apart from the rows it filters (model.py), so each stays a short module; an unknown field
or an ambiguous pattern is a SpanlabError the screen shows in place of the count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from evaluator.metrics.causes import DEPTH_ORDER
from evaluator.metrics.compare import Status
from labeler.core.errors import SpanlabError
from labeler.core.values import Boundary
from labeler.tui.triage.model import (
    ABSTAIN_GAINED,
    ABSTAIN_LOST,
    ABSTAIN_SAME,
    ABSTAIN_STATUSES,
    STATUS_ORDER,
    ChangeRow,
)

STATUS_WORDS: dict[str, tuple[str, ...]] = {
    "lost": (Status.LOST,),
    "gained": (Status.GAINED,),
    "both-miss": (Status.UNCHANGED_MISS,),
    "both-hit": (Status.UNCHANGED_HIT,),
    "abstain": ABSTAIN_STATUSES,
    "all": tuple(STATUS_ORDER),
}
"""Filter words that choose statuses; with none, the list shows the gained and lost, and the
abstention queries whose abstention check changed."""

CAUSE_WORDS = tuple(str(c) for c in DEPTH_ORDER)
"""Filter words that choose losses by cause."""


@dataclass(frozen=True)
class ChangeFilter:
    """What the query list shows: `slice:critical pattern:cond doc:shipping both-miss split
    parcel` — fields, status and cause words, and words of the id or text."""

    slice: str | None = None
    """Only queries carrying this slice."""
    pattern: Boundary | None = None
    """Only queries exercising this boundary pattern."""
    doc: str | None = None
    """Only queries with evidence in a document whose id contains this."""
    statuses: frozenset[str] = frozenset()
    """Only queries of these statuses; none named: DEFAULT_STATUSES."""
    causes: frozenset[str] = frozenset()
    """Only losses of these causes."""
    words: tuple[str, ...] = ()
    """Words that must each appear in the id or the query text."""

    @classmethod
    def parse(cls, line: str) -> ChangeFilter:
        """Read a filter line; an unknown field or an ambiguous pattern raises SpanlabError."""
        found = cls()
        words: list[str] = []
        statuses: set[str] = set()
        causes: set[str] = set()
        for token in line.split():
            field, sep, value = token.partition(":")
            if not sep or not value:
                word = token.lower()
                if word in STATUS_WORDS:
                    statuses.update(STATUS_WORDS[word])
                elif word in CAUSE_WORDS:
                    causes.add(word)
                else:
                    words.append(word)
            elif field in ("slice", "sl"):
                found = replace(found, slice=value)
            elif field in ("pattern", "p"):
                found = replace(found, pattern=_pattern(value.lower()))
            elif field in ("doc", "d"):
                found = replace(found, doc=value)
            else:
                raise SpanlabError(f"unknown filter {field!r} (slice, pattern, doc)", key=field)
        return replace(found, words=tuple(words), statuses=frozenset(statuses),
                       causes=frozenset(causes))  # fmt: skip

    def matches(self, row: ChangeRow) -> bool:
        if row.status not in (self.statuses or DEFAULT_STATUSES):
            return False
        if self.causes and row.cause not in self.causes:
            return False
        if self.slice is not None and self.slice not in row.slices:
            return False
        if self.pattern is not None and row.boundary != self.pattern.value:
            return False
        if self.doc is not None and not any(self.doc in d for d in row.docs):
            return False
        haystack = f"{row.query} {row.text}".lower()
        return all(w in haystack for w in self.words)

    def apply(self, rows: Sequence[ChangeRow]) -> list[ChangeRow]:
        return [r for r in rows if self.matches(r)]

    def unknown(self, rows: Sequence[ChangeRow]) -> str | None:
        """Why the filter names what no query has (`slice:nope`), or None: said, not an
        empty list that looks like an answer."""
        slices = sorted({s for r in rows for s in r.slices})
        if self.slice is not None and self.slice not in slices:
            return f"no query has slice:{self.slice} (slices: {', '.join(slices) or 'none'})"
        if self.doc is not None and not any(self.doc in d for r in rows for d in r.docs):
            return f"no query has evidence in a document matching doc:{self.doc}"
        return None


DEFAULT_STATUSES = (Status.LOST, Status.GAINED, ABSTAIN_LOST, ABSTAIN_GAINED)
"""What the list shows when the filter names no status: what changed."""


def _pattern(value: str) -> Boundary:
    found = [b for b in Boundary if b.value == value] or [
        b for b in Boundary if b.value.startswith(value)
    ]
    if len(found) != 1:
        allowed = ", ".join(b.value for b in Boundary)
        raise SpanlabError(f"pattern:{value} matches {len(found)} of: {allowed}", key="pattern")
    return found[0]


ANSWER_WORDS = ((ABSTAIN_LOST, "answered"), (ABSTAIN_GAINED, "abstained"),
                (ABSTAIN_SAME, "unchanged"))  # fmt: skip
"""How the count line names the abstention queries' rows."""


def count_line(rows: Sequence[ChangeRow], basis: str = "", total: str = "") -> str:
    """`2 lost, 1 gained at k = 5` (`total`, ` (of 74)`, before the basis), then the others
    when the filter lists them, then the abstention queries' answers (at budget, §23): `·
    abstention queries: 1 answered, 1 abstained` (answered where the baseline abstained, and
    the reverse)."""
    counts = Counter(r.status for r in rows)
    words = [("lost", "lost"), ("gained", "gained"), ("unchanged-miss", "both miss"),
             ("unchanged-hit", "both hit")]  # fmt: skip
    parts = [f"{counts[s]} {w}" for i, (s, w) in enumerate(words) if i < 2 or counts[s]]
    said = ", ".join(parts) + total + (f" at {basis}" if basis else "")
    answers = [f"{counts[s]} {w}" for s, w in ANSWER_WORDS if counts[s]]
    return said + (f" · abstention queries: {', '.join(answers)}" if answers else "")

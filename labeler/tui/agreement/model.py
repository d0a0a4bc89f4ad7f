"""What the agreement screen shows, kept apart from Textual: double-annotated queries by
disagreement, and two versions laid over one text with each character marked as both,
only the first, or only the second (§11). Tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from labeler.core.agreement import PairAgreement, agreement
from labeler.core.store import Store, Version
from labeler.core.team.visibility import Sight

Mark = Literal["both", "first", "second", "none"]
CONTEXT = 80
"""Characters of text shown around the versions' spans."""


@dataclass(frozen=True)
class Piece:
    """A run of text with one mark."""

    text: str
    """The characters."""
    mark: Mark
    """Who marked them."""


def overlay(text: str, first: Sequence[tuple[int, int]], second: Sequence[tuple[int, int]],
            *, context: int = CONTEXT) -> list[Piece]:  # fmt: skip
    """`text` around both versions' ranges, cut into runs marked both / first / second."""
    if not first and not second:
        return []
    lo = max(0, min(s for s, _ in [*first, *second]) - context)
    hi = min(len(text), max(e for _, e in [*first, *second]) + context)
    pieces: list[Piece] = []
    for i in range(lo, hi):
        a, b = _inside(first, i), _inside(second, i)
        mark: Mark = "both" if a and b else "first" if a else "second" if b else "none"
        if pieces and pieces[-1].mark == mark:
            pieces[-1] = Piece(pieces[-1].text + text[i], mark)
        else:
            pieces.append(Piece(text[i], mark))
    return pieces


def _inside(ranges: Sequence[tuple[int, int]], i: int) -> bool:
    return any(s <= i < e for s, e in ranges)


class AgreementModel:
    """The double-annotated queries that wait, least agreement first, and their versions."""

    def __init__(
        self, store: Store, text: Callable[[str], str], sight: Sight | None = None
    ) -> None:
        self.store = store
        self.sight = sight
        """Whose versions the reader may see (None: all): blind keeps others' from a
        member who is not a lead until a decision (§20)."""
        self.text = text
        """Canonical text of a document by id."""
        self.rows: list[PairAgreement] = []
        """One per waiting query (its least-agreeing pair), least agreement first."""
        self.versions: dict[str, dict[str, Version]] = {}
        """The versions of every row's query."""
        self.revisions: dict[str, int] = {}
        """Each row's query revision when read: a decision is compare-and-set on it."""

    def load(self, lengths: dict[str, int]) -> None:
        closed = self.store.closed_to_view()  # a blind annotator's own stay shut (§3)
        if self.sight is not None:
            closed |= self.sight.hidden(self.store)
        waiting = [q for q in self.store.waiting() if q not in closed]
        self.versions = self.store.versions(waiting) if waiting else {}
        self.revisions = {q: self.store.query(q).revision for q in waiting}
        report = agreement(self.store.query_rows(), self.versions, lengths)
        seen: set[str] = set()
        self.rows = []
        for p in report.queries:
            if p.query_id not in seen:
                seen.add(p.query_id)
                self.rows.append(p)

    def sides(self, query_id: str) -> list[tuple[str, list[Piece]]]:
        """Per document of the row's pair: the text with both versions laid over it."""
        row = next(r for r in self.rows if r.query_id == query_id)
        a, b = (self.versions[query_id][who] for who in row.pair)
        docs = sorted({s.doc for s in (*a.spans, *b.spans)})
        out = []
        for doc in docs:
            first = [(s.start, s.end) for s in a.spans if s.doc == doc]
            second = [(s.start, s.end) for s in b.spans if s.doc == doc]
            out.append((doc, overlay(self.text(doc), first, second)))
        return out

    def describe(self, query_id: str) -> str:
        """One part per version: who, how many spans or that they abstain, their pattern."""
        parts = []
        for who, v in sorted(self.versions.get(query_id, {}).items()):
            what = "abstains" if v.abstain else f"{len(v.spans)} span(s)"
            pattern = getattr(v.boundary, "value", v.boundary)
            parts.append(f"{who}: {what}, {pattern}")
        return " · ".join(parts)

"""Blind in every command and screen (§20): the one rule of which versions a member sees.

With `blind = true`, while a query's versions wait for a decision (no keep or merge since
the newest of them — a lone version too, for a second annotator may not have begun), a
member who is not a lead sees only their own version: every command and screen asks
`Sight` before it shows, counts or writes another's evidence, pattern, abstain flag or
notes, so a member who joins later sees no undecided version but their own either.

Agreement while versions wait: a non-lead is shown only how many double-annotated
queries wait, never a number computed over one of them — a per-query pattern, abstain
flag or F1, a document, a length, or an aggregate (κ, F1, αu) that moves with another's
undecided version would each leak some of it. Once a lead decides, the query's versions
are open to everyone. A lead's run measures lone versions too (§3): `show`, `trec`, `diff`
and triage leave such a query out for a non-lead, while a run's overall figures stay the
run's. A lead sees everything; so does everyone without `[team]`, where spanlab cannot
tell a lead from an annotator (there only the label screen is blind).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from labeler.core.team.roles import Member
from labeler.core.values import Span

V = TypeVar("V")


class Held(Protocol):
    """What blind reads of a stored version: its spans (the store's `Version`)."""

    @property
    def spans(self) -> Sequence[Span]:
        """The version's evidence."""
        ...


class Store(Protocol):
    """What blind asks the store (`labeler.core.store.Store`), so the rule stands below it."""

    def undecided(self) -> Mapping[str, frozenset[str]]:
        """{query id: who made its versions} for every query whose versions wait."""
        ...

    def standing(self) -> frozenset[str]:
        """Queries whose newest decision is a keep or merge (exported as decided)."""
        ...

    def waiting(self) -> Sequence[str]:
        """Queries with two or more versions and no decision since the last of them."""
        ...

    def versions(self, query_ids: Sequence[str] | None = None) -> Mapping[str, Mapping[str, Held]]:
        """{query id: {annotator: version}}."""
        ...


BLIND_WHY = (
    "blind (the project's `blind = true`) keeps another's version from you until a lead "
    "decides the query"
)
"""Why something is left out or refused, said once for every command and screen."""


@dataclass(frozen=True)
class Sight:
    """What one member may see of other members' versions of queries."""

    member: Member
    """Who looks: their login (is it a lead's?) and the name their own versions carry."""
    blind: bool
    """The project's `blind` setting (or `spanlab label --blind`)."""

    @property
    def sees_all(self) -> bool:
        """A lead, in a project that is not blind, or one without `[team]`; while the
        project's roles do not count (§20), nobody is a lead and blind holds."""
        if self.member.distrust is not None:
            return False
        return not self.blind or self.member.team is None or self.member.lead

    def hidden(self, store: Store) -> frozenset[str]:
        """Queries holding another member's version that waits for a decision."""
        if self.sees_all:
            return frozenset()
        own = self.member.name
        return frozenset(q for q, who in store.undecided().items() if who - {own})

    def withheld(self, store: Store) -> frozenset[str]:
        """Queries this member's exports leave out: every one whose versions wait, their
        own among them (a non-lead exports decided queries only); a query whose decision
        stands is exported as decided, a version written after it aside (§21)."""
        if self.sees_all:
            return frozenset()
        return frozenset(store.undecided()) - store.standing()

    def keeps_private(self, store: Store, query_ids: Iterable[str]) -> bool:
        """Whether a file this member writes in the project about `query_ids` (a run folder,
        an export) must be theirs alone (§21): they are a lead who sees versions blind keeps
        from the group, and one of the queries is written with a version that waits (a
        query whose decision stands is written as decided, holding no version)."""
        if not self.blind or self.member.team is None or not self.sees_all:
            return False
        waits = set(store.undecided()) - store.standing()
        return not waits.isdisjoint(query_ids)

    def refusal(self, store: Store, query_id: str) -> str | None:
        """Why this member may not see the query's evidence now (None: they may)."""
        if query_id not in self.hidden(store):
            return None
        return f"{query_id}: its versions wait for a decision; {BLIND_WHY}"

    def agreement_closed(self, store: Store) -> str | None:
        """Why the agreement screen shows this member nothing: every query that waits for
        adjudication holds another's version (None: some query is theirs to see)."""
        waiting = store.waiting()
        if self.sees_all or not waiting or set(waiting) - self.hidden(store):
            return None
        waits = f"every query waiting for adjudication ({len(waiting)}) holds another's version"
        return f"{waits}: {BLIND_WHY}"

    def versions(
        self, versions: Mapping[str, Mapping[str, V]], hidden: frozenset[str]
    ) -> dict[str, dict[str, V]]:
        """`versions` as this member may see them: of a `hidden` query, their own only."""
        own = self.member.name
        return {
            q: {who: v for who, v in by.items() if q not in hidden or who == own}
            for q, by in versions.items()
        }

    def hidden_spans(self, store: Store) -> frozenset[int]:
        """Ids of the spans in other members' undecided versions (stale-span review)."""
        hidden = self.hidden(store)
        if not hidden:
            return frozenset()
        own = self.member.name
        found = store.versions(sorted(hidden))
        return frozenset(
            s.id
            for by in found.values()
            for who, v in by.items()
            if who != own
            for s in v.spans
            if s.id is not None
        )

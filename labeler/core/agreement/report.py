"""The agreement report `spanlab labels agreement` prints: per annotator pair, per slice
and per pattern, with αu per document continuum and over the set, and how many queries
each number rests on (§11).

Built from plain values (query rows, versions, document lengths), so it runs without a
store and is timed against a plain read of the same rows (tests/benchmarks).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate

from labeler.core.agreement.pairs import PairAgreement, by_doc, compare, pairs_of
from labeler.core.agreement.unitizing import Disagreement, disagreement, merged, pooled
from labeler.core.store import QueryRow, Store, Version
from labeler.core.team.visibility import BLIND_WHY, Sight
from labeler.core.text.ranges import Range

Units = Mapping[str, tuple[list[Range], list[Range]]]
"""One pair of versions: per document, each version's spans there."""
Lengths = Mapping[str, int]
"""Document id -> its length in code points."""

NO_DOUBLE = (
    "no double-annotated queries: agreement needs two annotators' versions of a query "
    "(`spanlab labels assign A B --copies 2`, then `spanlab label --blind`)"
)
"""What the agreement report and screen say when there is nothing to compare."""


@dataclass(frozen=True)
class Summary:
    """Mean agreement over some pairs of versions."""

    queries: int
    """Distinct queries it rests on."""
    pairs: int
    """Pairs of versions compared."""
    f1: float
    """Mean overlap F1."""
    exact: float
    """Share of pairs with exactly the same spans."""
    abstention: float
    """Share of pairs agreeing on abstention."""
    pattern: float = 1.0
    """Share of pairs agreeing on the boundary pattern."""
    alpha: float | None = None
    """Unitizing alpha over the same pairs (None when nobody marked anything)."""
    basis: Basis | None = None
    """What `alpha` rests on: its continuum and units (None when it has none)."""


@dataclass(frozen=True)
class Basis:
    """The one continuum αu is computed on, as DKPro Agreement takes one study: the
    documents the pairs marked, laid end to end in id order, each pair a category."""

    documents: int
    """Documents laid end to end."""
    length: int
    """Code points of the continuum, L."""
    units: int
    """Units (merged spans) of every version compared."""
    categories: int
    """Pairs of versions with a unit: DKPro's categories, whose Do and De are averaged."""

    @property
    def said(self) -> str:
        """The basis in words, as `labels agreement` prints it after "αu"."""
        return (f"rests on {self.units} units of {self.categories} pairs on {self.documents} "
                f"documents end to end ({self.length:,} code points), one DKPro study; per "
                "document below, where a short one swings on a few characters")  # fmt: skip


@dataclass(frozen=True)
class Report:
    """Everything `labels agreement` shows."""

    double: int
    """Queries with two or more versions."""
    overall: Summary | None
    """Over every pair (None when no query is double-annotated)."""
    by_pair: dict[str, Summary] = field(default_factory=dict)
    """`alice+bob` -> summary."""
    by_slice: dict[str, Summary] = field(default_factory=dict)
    """Slice -> summary."""
    by_pattern: dict[str, Summary] = field(default_factory=dict)
    """Boundary pattern -> summary."""
    by_document: dict[str, Summary] = field(default_factory=dict)
    """Document -> summary of the pairs with a span in it, αu on its continuum."""
    queries: list[PairAgreement] = field(default_factory=list)
    """Every pair of every query, least agreement first."""
    withheld: int = 0
    """Double-annotated queries left out of every number above: their versions wait for a
    decision and the reader is not a lead (blind, §20); only how many is shown."""

    @property
    def withheld_line(self) -> str | None:
        """What the report says of the queries it leaves out (None: it leaves none out)."""
        if not self.withheld:
            return None
        waits = f"{self.withheld} double-annotated quer(y/ies) wait for a decision, left out"
        return f"{waits}: {BLIND_WHY}"


def _summary(found: Sequence[PairAgreement], units: Sequence[Units], lengths: Lengths) -> Summary:
    n = len(found)
    parts, basis = _alpha(units, lengths)
    return Summary(
        queries=len({p.query_id for p in found}),
        pairs=n,
        f1=sum(p.f1 for p in found) / n,
        exact=sum(p.exact for p in found) / n,
        abstention=sum(p.abstain_agree for p in found) / n,
        pattern=sum(p.pattern_agree for p in found) / n,
        alpha=pooled(parts).alpha,
        basis=basis,
    )


def _alpha(pairs: Sequence[Units], lengths: Lengths) -> tuple[list[Disagreement], Basis | None]:
    """Per pair, Do and De on one continuum: every document the pairs marked, end to end.

    One continuum for all, as DKPro Agreement's one study, so each pair's Do and De share
    one L and their means are DKPro's over categories. Averaging per-document figures
    instead lets a tiny document dominate: Do and De grow as its length shrinks.
    """
    docs = sorted({d for pair in pairs for d in pair if lengths.get(d, 0) > 0})
    if not docs:
        return [], None
    offset = dict(zip(docs, accumulate((lengths[d] for d in docs[:-1]), initial=0), strict=True))
    total = sum(lengths[d] for d in docs)
    parts, units = [], 0
    for pair in pairs:
        sides = [[(offset[d] + s, offset[d] + e) for d, (a, b) in pair.items() if d in offset
                  for s, e in (a, b)[k]] for k in (0, 1)]  # fmt: skip
        if any(sides):
            parts.append(disagreement(sides, total))
            units += sum(len(merged(side)) for side in sides)
    return parts, Basis(len(docs), total, units, len(parts))


def _units(a: Version, b: Version) -> Units:
    """Per document, each version's spans there (as ranges)."""
    left, right = by_doc(a.spans), by_doc(b.spans)
    return {doc: (left.get(doc, []), right.get(doc, [])) for doc in sorted(set(left) | set(right))}


def agreement(
    rows: Iterable[QueryRow],
    versions: Mapping[str, Mapping[str, Version]],
    lengths: Mapping[str, int],
) -> Report:
    """Compare every pair of versions of every double-annotated query."""
    found: list[PairAgreement] = []
    parts: dict[int, Units] = {}
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    meta = {r.id: r for r in rows}
    for qid in sorted(versions):
        row = meta.get(qid)
        if row is None or len(versions[qid]) < 2:
            continue
        for a, b in pairs_of(versions[qid]):
            i = len(found)
            found.append(compare(qid, a, b))
            parts[i] = {d: u for d, u in _units(a, b).items() if lengths.get(d, 0) > 0}
            groups["pair"]["+".join(found[i].pair)].append(i)
            groups["pattern"][row.boundary.value].append(i)
            for s in row.slices:
                groups["slice"][s].append(i)
            for doc in parts[i]:
                groups["doc"][doc].append(i)
    if not found:
        return Report(double=0, overall=None)

    def over(idx: Sequence[int], doc: str | None = None) -> Summary:
        units = [{k: u for k, u in parts[i].items() if doc is None or k == doc} for i in idx]
        return _summary([found[i] for i in idx], units, lengths)

    def table(kind: str) -> dict[str, Summary]:
        return {k: over(v, k if kind == "doc" else None) for k, v in sorted(groups[kind].items())}

    return Report(
        double=len({p.query_id for p in found}),
        overall=over(range(len(found))),
        by_pair=table("pair"),
        by_slice=table("slice"),
        by_pattern=table("pattern"),
        by_document=table("doc"),
        queries=sorted(found, key=lambda p: (p.agrees, p.f1, p.exact, p.query_id)),
    )


def agreement_seen(store: Store, sight: Sight, lengths: Mapping[str, int]) -> Report:
    """The report as `sight` lets its member see it: a non-lead's leaves out, counted, every
    query holding another's version that waits for a decision (§20)."""
    hidden = sight.hidden(store)
    every = store.versions()
    report = agreement(store.query_rows(), sight.versions(every, hidden), lengths)
    return replace(report, withheld=sum(len(every.get(q, {})) >= 2 for q in hidden))

"""The span-level TREC lines of one candidate: each evidence group placed at its TRUE
first-match rank, as run.json records it (§7, on what is sent, §18), not re-derived from
the retrieved chunks (a context candidate's chunk is not what it sends).

Fillers (`QID#fill<rank>`) stand at every rank where no group is first matched, so a
line's position is its rank and ranx's or ir_measures' recall@k, hit and MRR over these
files are the run's. One unit can first match several groups at one rank; the later ones
take the nearest free position on the same side of k (or of the budget's cut), later if one
is free, else earlier: recall@k stays exact, and the rank column still holds every group's
true first-match rank (tools order by the score, which holds the position).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluator.runs.model_queries import QueryResult


def group_ranks(
    result: QueryResult, items: Sequence[int], matched_within: int | None = None
) -> dict[int, int | None]:
    """Span item -> its group's first-match rank (the best of its alternatives; None beyond
    depth). With `matched_within` (k), a group the run counts as matched within k but whose
    first rank is not (split evidence under `union`) is given rank `matched_within`."""
    ranks = result.first_match_ranks or ()
    causes = result.span_causes
    best: dict[int, int | None] = {}
    for n, item in enumerate(items):
        rank = ranks[n] if n < len(ranks) else None
        held = matched_within is not None and n < len(causes) and causes[n] is None
        if held and matched_within is not None and (rank is None or rank > matched_within):
            rank = matched_within
        old = best.get(item)
        best[item] = rank if old is None else old if rank is None else min(old, rank)
    return best


def placed(ranks: Mapping[int, int], edge: int) -> dict[int, int]:
    """Item -> its position: its rank, or for a second item at one rank the nearest free
    position on the same side of `edge` (after it first, else before it)."""
    taken: set[int] = set()
    out: dict[int, int] = {}
    for item, rank in sorted(ranks.items(), key=lambda x: (x[1], x[0])):
        out[item] = pos = _free_near(rank, edge, taken)
        taken.add(pos)
    return out


def _free_near(rank: int, edge: int, taken: set[int]) -> int:
    if rank not in taken:
        return rank
    low, high = (1, edge) if rank <= edge else (edge + 1, None)
    pos = rank + 1
    while high is None or pos <= high:
        if pos not in taken:
            return pos
        pos += 1
    for pos in range(rank - 1, low - 1, -1):
        if pos not in taken:
            return pos
    pos = 1  # more groups than ranks up to the edge: the first free one past it
    while pos in taken:
        pos += 1
    return pos


def span_lines(
    qid: str, name: str, found: Mapping[int, int | None], edge: int, limit: int
) -> list[str]:
    """One query's lines: every group first matched within `limit` at its position, fillers
    at the free positions before the last; `edge` is the k (or cut) ranks must not cross.
    The rank column holds each group's true first-match rank (a filler's: its position);
    the score, which tools sort by, holds the position."""
    within = {i: r for i, r in found.items() if r is not None and r <= limit}
    positions = placed(within, edge)
    by_pos = {p: (f"{qid}#{i}", within[i]) for i, p in positions.items()}
    last = max(by_pos, default=1)
    items = [by_pos.get(p, (f"{qid}#fill{p}", p)) for p in range(1, last + 1)]
    return [f"{qid} Q0 {item} {rank} {last - p + 1} {name}"
            for p, (item, rank) in enumerate(items, 1)]  # fmt: skip

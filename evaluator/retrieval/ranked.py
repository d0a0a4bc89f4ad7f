"""`retriever = "ranked"` (§19): rankings the team's production system returned, read from
a file — JSONL shadow-traffic logs or a TREC run — and evaluated like any candidate.

JSONL: a line a query, `{"query": id or the question's text, "ranked": [item, …]}`, items
as `evaluator.retrieval.items` reads them (an item may add a numeric `score`). TREC:
`qid Q0 chunk_id rank score tag`, ids the candidate's chunk ids (what `spanlab trec`
writes) or its chunk file's own, ranked by the rank column. Read whole before any query
is measured; the first bad line is refused naming file and line: an unknown query, a query
given twice, more items than the run's depth, an item that is not one of the candidate's
chunks. With `ranked_skip_bad` a bad line is skipped instead and counted, the first few
named (a JSONL line is a query, left unranked; a TREC line one item, left out of its
query's list).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from evaluator.retrieval.base import QueryInput, Ranked
from evaluator.retrieval.items import ONCE, ChunkLookup, Where, repeated
from labeler.core.errors import ConfigError
from labeler.core.files.reading import bounded_lines, open_regular
from labeler.core.typed import MAX_CHUNK_FILE, Refusal, json_tree


@dataclass(frozen=True)
class _Line:
    """A line of the ranked file, for the shared bounds' refusals."""

    file: str
    """The ranked file."""
    line: int = 0
    """1-based line; 0 for the file itself."""

    def at(self, key: str) -> _Line:
        return self

    def refuse(self, refusal: Refusal) -> ConfigError:
        return ConfigError(refusal.message, file=self.file, line=self.line or None,
                           offset=refusal.offset)  # fmt: skip


@dataclass(frozen=True)
class Rankings:
    """Query id -> its ranked chunks, as the file gave them."""

    lists: Mapping[str, list[Ranked]]
    """The ranked chunks of each query the file holds."""
    missing: int
    """Queries asked that the file has no line for (ranked as nothing)."""
    skipped: int = 0
    """Bad lines skipped (only with `ranked_skip_bad`)."""
    named: tuple[ConfigError, ...] = ()
    """The first `NAMED` skipped lines' refusals, each naming file and line."""


NAMED = 20
"""Skipped lines named one by one in the run; the rest only counted."""


@dataclass
class _Skipping:
    """`ranked_skip_bad`: a bad line is counted and its refusal kept (the first NAMED);
    without it the first bad line is the error."""

    on: bool
    """Whether bad lines are skipped."""
    count: int = 0
    """Lines skipped."""
    named: list[ConfigError] = field(default_factory=list)
    """The first refusals."""

    def line(self, read: Callable[[], None]) -> None:
        try:
            read()
        except ConfigError as exc:
            if not self.on:
                raise
            self.count += 1
            if len(self.named) < NAMED:
                self.named.append(exc)


class RankedRetriever:
    def __init__(self, rankings: Rankings) -> None:
        self.rankings = rankings
        """What the file holds."""

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        return [list(self.rankings.lists.get(q.id, []))[:depth] for q in queries]


class _Queries:
    """The asked queries by id and by text; each may be ranked once."""

    def __init__(self, queries: Sequence[QueryInput]) -> None:
        self.by_key = {q.text: q.id for q in queries} | {q.id: q.id for q in queries}
        self.seen: dict[str, int] = {}

    def look(self, key: Any, where: Where) -> str:
        """The query `key` names, not yet ranked; taken only once its line is good."""
        qid = self.by_key.get(key) if isinstance(key, str) else None
        if qid is None:
            shown = repr(key)[:60] if isinstance(key, str) else "missing"
            raise where.refuse(f"query {shown} is not a query of the label set", "query")
        if qid in self.seen:
            raise where.refuse(f"query {qid} is ranked again (first on line {self.seen[qid]})")
        return qid

    def take(self, key: Any, where: Where) -> str:
        qid = self.look(key, where)
        self.seen[qid] = where.line or 0
        return qid


def read_rankings(path: str, lookup: ChunkLookup, queries: Sequence[QueryInput],
                  depth: int, skip_bad: bool = False) -> Rankings:  # fmt: skip
    """Every line read and checked; nothing is measured unless all of it is good (or, with
    `skip_bad`, the bad lines are skipped and counted)."""
    try:
        lines = list(_lines(path))
    except OSError as exc:
        raise ConfigError(f"cannot read ranked file: {exc.strerror}", file=path) from None
    trec = bool(lines) and not lines[0][1].lstrip().startswith("{")
    reader = (_Trec if trec else _Json)(path, lookup, _Queries(queries), depth)
    skip = _Skipping(skip_bad)
    for number, raw in lines:
        skip.line(partial(reader.line, number, raw))
    lists = reader.lists()
    if not lists:
        told = f" ({skip.count} bad line(s) skipped)" if skip.count else ""
        raise ConfigError(f"the ranked file ranks no query{told}", file=path)
    missing = sum(1 for q in queries if q.id not in lists)
    return Rankings(lists, missing, skip.count, tuple(skip.named))


def _lines(path: str) -> Iterator[tuple[int, str]]:
    with open_regular(path, MAX_CHUNK_FILE, _Line(path)) as handle:
        for number, raw in bounded_lines(handle, MAX_CHUNK_FILE, partial(_Line, path)):
            if raw.strip():
                yield number, raw


@dataclass
class _Json:
    """JSONL: a line a query, taken only when every item on it is good."""

    path: str
    """The ranked file."""
    lookup: ChunkLookup
    """The candidate's chunks."""
    asked: _Queries
    """The run's queries."""
    depth: int
    """Most items a query may rank."""
    found: dict[str, list[Ranked]] = field(default_factory=dict)
    """Each query's ranked chunks so far."""

    def line(self, number: int, raw: str) -> None:
        where = Where(self.path, number)
        obj = _object(raw, where, _Line(self.path, number))
        qid = self.asked.look(obj.get("query"), where)
        items = obj.get("ranked")
        if not isinstance(items, list):
            raise where.refuse("'ranked' must be a list of items", "ranked")
        if len(items) > self.depth:
            raise where.refuse(f"{len(items)} items, more than the run's depth ({self.depth})")
        ranked = [_ranked(self.lookup.item(it, where), it, n, len(items), where)
                  for n, it in enumerate(items, 1)]  # fmt: skip
        if (again := repeated(ranked)) is not None:
            first, n = again
            said = f"item {n} is chunk {ranked[n - 1].chunk.id} again (first as item {first})"
            raise where.refuse(f"{said}: {ONCE}", "ranked")
        self.found[qid] = ranked
        self.asked.take(qid, where)

    def lists(self) -> dict[str, list[Ranked]]:
        return self.found


def _object(raw: str, where: Where, place: _Line) -> dict[str, Any]:
    try:
        obj = json_tree(raw, place)
    except json.JSONDecodeError as exc:
        raise where.refuse(f"not JSON: {exc.msg}") from None
    if not isinstance(obj, dict):
        raise where.refuse("each line must be a JSON object")
    return obj


def _ranked(chunk: Any, item: Mapping[str, Any], rank: int, n: int, where: Where) -> Ranked:
    """The item's own score, else one derived from its rank (n − rank + 1)."""
    score = item.get("score", n - rank + 1)
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise where.refuse(f"item {rank}'s score must be a finite number", "score")
    return Ranked(chunk, float(score))


@dataclass
class _Trec:
    """A TREC run: a line an item, each query's items ordered by the rank column."""

    path: str
    """The ranked file."""
    lookup: ChunkLookup
    """The candidate's chunks."""
    asked: _Queries
    """The run's queries."""
    depth: int
    """Most items a query may rank."""
    rows: dict[str, list[tuple[int, Ranked]]] = field(default_factory=dict)
    """Each query's (rank, item) so far."""
    lines: dict[tuple[str, str], int] = field(default_factory=dict)
    """(query, chunk id) -> the line that ranked it: each chunk once per query."""

    def line(self, number: int, raw: str) -> None:
        where = Where(self.path, number)
        fields = raw.split()
        if len(fields) != 6:
            raise where.refuse("a TREC run line is 'qid Q0 chunk_id rank score tag'")
        rank = _trec_rank(fields[3], where)
        qid = self.asked.by_key.get(fields[0], "")
        if qid not in self.asked.seen:
            qid = self.asked.look(fields[0], where)
        got = self.rows.get(qid, [])
        if len(got) >= self.depth:
            raise where.refuse(f"query {qid} has more items than the run's depth ({self.depth})")
        score = _trec_score(fields[4], where)
        item = Ranked(self.lookup.item({"id": fields[2]}, where), score)
        if (first := self.lines.get((qid, item.chunk.id))) is not None:
            said = f"query {qid} ranks chunk {item.chunk.id} again (first on line {first})"
            raise where.refuse(f"{said}: {ONCE}", "chunk_id")
        self.lines[(qid, item.chunk.id)] = number
        self.asked.seen.setdefault(qid, number)
        self.rows.setdefault(qid, []).append((rank, item))

    def lists(self) -> dict[str, list[Ranked]]:
        return {qid: [r for _, r in sorted(got, key=lambda x: x[0])]
                for qid, got in self.rows.items()}  # fmt: skip


MAX_RANK_DIGITS = 9
"""Longest rank column (digits): ranks past 10^9 are no run's."""


def _trec_rank(text: str, where: Where) -> int:
    """The rank column: ASCII digits only (`²` is a digit to Python, not to int()), and short
    enough to be a rank; anything else refused naming the line."""
    if not (text.isascii() and text.isdigit()):
        raise where.refuse(f"the rank column must be a whole number, got {text[:20]!r}", "rank")
    if len(text) > MAX_RANK_DIGITS:
        raise where.refuse(f"the rank column holds {len(text):,} digits (at most "
                           f"{MAX_RANK_DIGITS})", "rank")  # fmt: skip
    return int(text)


def _trec_score(text: str, where: Where) -> float:
    try:
        score = float(text)
    except ValueError:
        score = math.nan
    if not math.isfinite(score):
        raise where.refuse("the score column must be a finite number")
    return score

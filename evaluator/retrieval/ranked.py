"""`retriever = "ranked"` (§19): rankings the team's production system returned, read from
a file — JSONL shadow-traffic logs or a TREC run — and evaluated like any candidate.

JSONL: a line a query, `{"query": id or the question's text, "ranked": [item, …]}`, items
as `evaluator.retrieval.items` reads them (an item may add a numeric `score`). TREC:
`qid Q0 chunk_id rank score tag`, ids the candidate's chunk ids (what `spanlab trec`
writes), ranked by the rank column. Read whole before any query is measured; the first
bad line is refused naming file and line: an unknown query, a query given twice, more
items than the run's depth, an item that is not one of the candidate's chunks.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from evaluator.retrieval.base import QueryInput, Ranked
from evaluator.retrieval.items import ChunkLookup, Where
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

    def take(self, key: Any, where: Where) -> str:
        qid = self.by_key.get(key) if isinstance(key, str) else None
        if qid is None:
            shown = repr(key)[:60] if isinstance(key, str) else "missing"
            raise where.refuse(f"query {shown} is not a query of the label set", "query")
        if qid in self.seen:
            raise where.refuse(f"query {qid} is ranked again (first on line {self.seen[qid]})")
        self.seen[qid] = where.line or 0
        return qid


def read_rankings(path: str, lookup: ChunkLookup, queries: Sequence[QueryInput],
                  depth: int) -> Rankings:  # fmt: skip
    """Every line read and checked; nothing is measured unless all of it is good."""
    asked = _Queries(queries)
    lists: dict[str, list[Ranked]] = {}
    try:
        lines = list(_lines(path))
    except OSError as exc:
        raise ConfigError(f"cannot read ranked file: {exc.strerror}", file=path) from None
    trec = bool(lines) and not lines[0][1].lstrip().startswith("{")
    read = _trec_lines if trec else _json_lines
    for qid, ranked in read(path, lines, lookup, asked, depth):
        lists[qid] = ranked
    if not lists:
        raise ConfigError("the ranked file ranks no query", file=path)
    return Rankings(lists, sum(1 for q in queries if q.id not in lists))


def _lines(path: str) -> Iterator[tuple[int, str]]:
    with open_regular(path, MAX_CHUNK_FILE, _Line(path)) as handle:
        for number, raw in bounded_lines(handle, MAX_CHUNK_FILE, partial(_Line, path)):
            if raw.strip():
                yield number, raw


def _json_lines(path: str, lines: list[tuple[int, str]], lookup: ChunkLookup,
                asked: _Queries, depth: int) -> Iterator[tuple[str, list[Ranked]]]:  # fmt: skip
    for number, raw in lines:
        where = Where(path, number)
        obj = _object(raw, where, _Line(path, number))
        qid = asked.take(obj.get("query"), where)
        items = obj.get("ranked")
        if not isinstance(items, list):
            raise where.refuse("'ranked' must be a list of items", "ranked")
        if len(items) > depth:
            raise where.refuse(f"{len(items)} items, more than the run's depth ({depth})")
        yield qid, [_ranked(lookup.item(it, where), it, n, len(items), where)
                    for n, it in enumerate(items, 1)]  # fmt: skip


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


def _trec_lines(path: str, lines: list[tuple[int, str]], lookup: ChunkLookup,
                asked: _Queries, depth: int) -> Iterator[tuple[str, list[Ranked]]]:  # fmt: skip
    rows: dict[str, list[tuple[int, Ranked]]] = {}
    for number, raw in lines:
        where = Where(path, number)
        fields = raw.split()
        if len(fields) != 6 or not fields[3].isdigit():
            raise where.refuse("a TREC run line is 'qid Q0 chunk_id rank score tag'")
        qid = asked.take(fields[0], where) if fields[0] not in rows else asked.by_key[fields[0]]
        got = rows.setdefault(qid, [])
        if len(got) >= depth:
            raise where.refuse(f"query {qid} has more items than the run's depth ({depth})")
        score = _trec_score(fields[4], where)
        got.append((int(fields[3]), Ranked(lookup.item({"id": fields[2]}, where), score)))
    for qid, got in rows.items():
        yield qid, [r for _, r in sorted(got, key=lambda x: x[0])]


def _trec_score(text: str, where: Where) -> float:
    try:
        score = float(text)
    except ValueError:
        score = math.nan
    if not math.isfinite(score):
        raise where.refuse("the score column must be a finite number")
    return score

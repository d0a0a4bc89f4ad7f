"""`include` globs as matchers whose time is bounded (§2, §21): a regex for the simple globs
(one `**`, two `*` or `?`: at worst quadratic in a path), and for any other a walk over
the glob's states, linear in the path times the glob, so no glob within the budget (and none
a member writes) can make a reader wait.

Semantics, whichever matcher: `**/` any folders (none included), `**` any characters, `*`
and `?` within one path part; a glob without `/` matches a file's name at any depth.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

MAX_GLOB = 512
"""Longest glob (characters)."""
MAX_ANY_DEPTH = 4
"""Most `**` one glob may hold (each matches any run of folders)."""
MAX_WILDCARDS = 16
"""Most `*` and `?` (besides `**`) one glob may hold."""
_DIRS, _ANY, _STAR, _ONE = "dirs", "any", "star", "one"
"""Tokens: `**/`, `**`, `*`, `?`; any other token is a literal character."""

Matcher = Callable[[str], bool]
"""Whether a POSIX path relative to the corpus folder matches."""


def too_costly(pattern: str) -> str | None:
    """Why `pattern` is over the complexity budget, in words (None: it is within it)."""
    if len(pattern) > MAX_GLOB:
        return f"is {len(pattern):,} characters long (at most {MAX_GLOB})"
    deep = pattern.count("**")
    if deep > MAX_ANY_DEPTH:
        return f"holds {deep:,} '**' (at most {MAX_ANY_DEPTH}: each matches any run of folders)"
    wild = pattern.replace("**", "").count("*") + pattern.count("?")
    if wild > MAX_WILDCARDS:
        return f"holds {wild:,} '*' and '?' (at most {MAX_WILDCARDS})"
    return None


def _tokens(pattern: str) -> list[str]:
    if "/" not in pattern:
        pattern = "**/" + pattern
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append(_DIRS)
            i += 3
        elif pattern.startswith("**", i):
            out.append(_ANY)
            i += 2
        else:
            out.append({"*": _STAR, "?": _ONE}.get(pattern[i], pattern[i]))
            i += 1
    return out


def matcher(pattern: str) -> Matcher:
    """The fastest matcher whose time is bounded for `pattern`."""
    tokens = _tokens(pattern)
    wild = sum(1 for t in tokens if t in (_STAR, _ONE))
    if sum(1 for t in tokens if t in (_DIRS, _ANY)) <= 1 and wild <= 2:
        regex = _regex(tokens)
        return lambda rel: regex.match(rel) is not None
    walk = _Walk(tokens)
    return walk.matches


def _regex(tokens: list[str]) -> re.Pattern[str]:
    parts = {_DIRS: "(?:.*/)?", _ANY: ".*", _STAR: "[^/]*", _ONE: "[^/]"}
    return re.compile("".join(parts.get(t, re.escape(t)) for t in tokens) + r"\Z", re.S)


class _Walk:
    """The glob as states, all followed at once (Thompson's construction): state i waits at
    token i; `-i - 1` is inside a `**/` that must end with a `/`. Each set of states met is
    numbered and each (set, character) step remembered, so a path costs a lookup a
    character (a lazy DFA, its table bounded by MAX_MOVES; the app's watcher thread and a
    screen may match at once, so a table is only added to under a lock, and replaced whole)."""

    MAX_MOVES = 1 << 16
    """Remembered steps; past it a new table starts before the next path (memory stays
    bounded: one path adds at most a step per character)."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.lock = threading.Lock()
        self.table = self._table()

    def _table(self) -> _Table:
        table = _Table()
        table.number(frozenset(self._closure({0})))
        return table

    def _closure(self, states: set[int]) -> set[int]:
        todo, done = list(states), set(states)
        while todo:
            i = todo.pop()
            if i < 0 or i >= len(self.tokens):
                continue
            token = self.tokens[i]
            nexts = {i + 1} if token in (_ANY, _STAR, _DIRS) else set()
            if token == _DIRS:
                nexts.add(-i - 1)
            for j in nexts - done:
                done.add(j)
                todo.append(j)
        return done

    def _step(self, i: int, char: str) -> tuple[int, ...]:
        if i < 0:  # inside `**/`: any character, and a `/` may end it
            return (i, -i) if char == "/" else (i,)
        if i >= len(self.tokens):
            return ()
        token = self.tokens[i]
        if token == _ANY or (token == _STAR and char != "/"):
            return (i,)
        if (token == _ONE and char != "/") or token == char:
            return (i + 1,)
        return ()

    def _move(self, table: _Table, number: int, char: str) -> int:
        found = table.moves.get((number, char))
        if found is None:
            states = {j for i in table.sets[number] for j in self._step(i, char)}
            with self.lock:
                found = table.number(frozenset(self._closure(states)))
                table.moves[(number, char)] = found
        return found

    def matches(self, rel: str) -> bool:
        if len(self.table.moves) >= self.MAX_MOVES:
            self.table = self._table()
        table, number = self.table, 0
        for char in rel:
            number = self._move(table, number, char)
            if not table.sets[number]:
                return False
        return len(self.tokens) in table.sets[number]


class _Table:
    """The sets of states met (set 0: the start) and the steps between them."""

    def __init__(self) -> None:
        self.sets: list[frozenset[int]] = []
        """Each set of states met, by number."""
        self.numbers: dict[frozenset[int], int] = {}
        """Its number, by set."""
        self.moves: dict[tuple[int, str], int] = {}
        """(set, character) -> the set it steps to."""

    def number(self, states: frozenset[int]) -> int:
        """`states`' number, given when first met (the caller holds the walk's lock)."""
        if states not in self.numbers:
            self.sets.append(states)
            self.numbers[states] = len(self.sets) - 1
        return self.numbers[states]

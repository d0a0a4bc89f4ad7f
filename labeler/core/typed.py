"""One rule for the types every file reader accepts (label sets, formats, candidates files).

Python's bool is an int, so a bare `isinstance` lets `true` pass as a count or a threshold;
and TOML and JSON write `1` where a threshold of 1.0 is meant. Hence: a bool is accepted only
where a bool is asked for, never as a number; an int is accepted wherever a float is. The
rule lives here once; each reader words and raises its refusals through its own `Place`.
The bounds every input shares live here too (file and line sizes, which
labeler.core.files.reading applies; nesting; text with no UTF-8 form or a NUL; numbers that are
not finite or absurd), so no reader meets a value the parser's recursion, the encoder or
the arithmetic downstream would crash on.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

Kind = type | tuple[type, ...]
"""What a key must hold: one type, or any of several."""


@dataclass(frozen=True)
class Refusal:
    """Why a value was refused: the facts, for the reader to word in its own style."""

    reason: Literal["missing", "not an object", "wrong type", "out of bounds"]
    """What went wrong: a type (the first three), or a bound (below)."""
    key: str = ""
    """The key looked up, for a missing key."""
    wanted: str = ""
    """The kinds asked for (`int/float`), for a wrong type."""
    got: str = ""
    """The type found (`bool`), for a wrong type."""
    detail: str = ""
    """The whole wording, for a bound (`is nested deeper than 64 levels`)."""
    offset: int | None = None
    """The byte offset in the file, for a bound broken at one (text that is not UTF-8)."""

    @property
    def about_type(self) -> bool:
        """A refusal of the type rule, which readers word in their own style."""
        return self.reason != "out of bounds"

    @property
    def message(self) -> str:
        """The plain wording (`must be int, got bool`), for readers that add nothing."""
        if self.reason == "missing":
            return f"missing key {self.key!r}"
        if self.reason == "not an object":
            return "must be an object"
        if self.reason == "out of bounds":
            return self.detail
        return f"must be {self.wanted}, got {self.got}"


class Place(Protocol):
    """Where a value sits in a reader's file, and how that reader raises there."""

    def at(self, key: str) -> Place:
        """The place one key deeper."""
        ...

    def refuse(self, refusal: Refusal) -> Exception:
        """The error to raise for `refusal` at this place (LabelError, ConfigError, …)."""
        ...


def accepts(value: object, kind: Kind) -> bool:
    """The rule: bool only where bool is asked for; int also where float is."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, int) and float in kinds:
        return True
    return isinstance(value, kinds)


def kind_names(kind: Kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return "/".join(k.__name__ for k in kinds)


def typed(value: Any, kind: Kind, where: Place) -> Any:
    """`value` itself when it is of `kind`; otherwise `where`'s error is raised."""
    if not accepts(value, kind):
        got = type(value).__name__
        raise where.refuse(Refusal("wrong type", wanted=kind_names(kind), got=got))
    return value


def need(obj: Any, key: str, kind: Kind, where: Place) -> Any:
    """`obj[key]`, which must exist and be of `kind`; `where` is the place of `obj`."""
    if not isinstance(obj, dict):
        raise where.refuse(Refusal("not an object"))
    if key not in obj:
        raise where.at(key).refuse(Refusal("missing", key=key))
    return typed(obj[key], kind, where.at(key))


# -- bounds every input shares ------------------------------------------------------------

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects (tables) in any input; ours need 6."""
MAX_LABEL_FILE = 256 * 1024 * 1024
"""Largest label file read (bytes): a million queries with evidence fit well inside."""
MAX_CONFIG_FILE = 1024 * 1024
"""Largest spanlab.toml or candidates file read (bytes)."""
MAX_INT = 2**53
"""Largest integer magnitude any input may hold: every count and offset fits."""
MAX_LINE = 16 * 1024 * 1024
"""Longest line of a line-based file (bytes), read in pieces: a longer one is never held."""
MAX_QUERIES_FILE = 64 * 1024 * 1024
"""Largest plain questions file (bytes): 300,000 questions of 200 characters fit."""
MAX_CHUNK_FILE = 1024 * 1024 * 1024
"""Largest chunk file (bytes), streamed: the chunks of a 100 MB corpus with text fit."""


def out_of_bounds(where: Place, detail: str) -> Exception:
    """`where`'s error for a bound broken, worded `detail`."""
    return where.refuse(Refusal("out of bounds", detail=detail))


def over_limit(size: int, limit: int) -> str:
    """How a size over its bound is worded, for bytes in hand and for a file's stat alike."""
    return f"is {size:,} bytes, over the limit of {limit:,} bytes"


def sized(data: bytes, limit: int, where: Place) -> bytes:
    """`data` when it is at most `limit` bytes (files: files.reading sizes them first)."""
    if len(data) > limit:
        raise out_of_bounds(where, over_limit(len(data), limit))
    return data


_JSON_SKIP = re.compile(r'"(?:[^"\\]|\\.)*"|[^\[\]{}"]+')
_TOML_SKIP = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[^\[\]{}"\'#]+'
)


def _depth(text: str, skip: re.Pattern[str]) -> int:
    deepest = depth = 0
    for char in skip.sub("", text):
        depth += 1 if char in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def shallow(text: str, where: Place, *, toml: bool = False) -> str:
    """`text` when its arrays and objects nest at most MAX_DEPTH deep (before parsing)."""
    if _depth(text, _TOML_SKIP if toml else _JSON_SKIP) > MAX_DEPTH:
        raise out_of_bounds(where, f"is nested deeper than {MAX_DEPTH} levels")
    return text


def _walk(value: Any) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every key and value below `value`, each with its path (`("queries", "[3]", "text")`)."""
    stack: list[tuple[tuple[str, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        yield path, item
        if isinstance(item, dict):
            for key, child in item.items():
                yield (*path, str(key)), key
                stack.append(((*path, str(key)), child))
        elif isinstance(item, list):
            stack.extend(((*path, f"[{i}]"), child) for i, child in enumerate(item))


def _trouble(value: Any) -> str | None:
    """What no input value may be: text with no UTF-8 form or a NUL, an absurd number."""
    if isinstance(value, str):
        if "\x00" in value:
            return "holds a NUL character"
        if _SURROGATE.search(value):
            return "holds a lone surrogate (text with no UTF-8 form)"
    elif isinstance(value, float) and not math.isfinite(value):
        return f"is {value}, not a finite number"
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        return f"is beyond the largest number an input may hold ({MAX_INT:,})"
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(tree: Any, where: Place) -> Any:
    """`tree` when no string in it (key or value) and no number breaks a shared bound."""
    for path, value in _walk(tree):
        if (problem := _trouble(value)) is not None:
            place = where
            for key in path:
                place = place.at(key)
            raise out_of_bounds(place, f"{path[-1] if path else 'the value'} {problem}")
    return tree


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON may hold")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 16:
        raise ValueError(f"the integer {text[:20]}… is beyond {MAX_INT:,}")
    return int(text)


def json_tree(text: str, where: Place) -> Any:
    """Parse bounded JSON; a syntax error stays `json.JSONDecodeError` for the reader."""
    shallow(text, where)
    try:
        tree = json.loads(text, parse_constant=_no_constant, parse_int=_int)
    except RecursionError:
        raise out_of_bounds(where, f"is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        raise out_of_bounds(where, str(exc)) from None
    return clean(tree, where)


def toml_tree(text: str, where: Place) -> dict[str, Any]:
    """Parse bounded TOML; a syntax error stays `tomllib.TOMLDecodeError` for the reader."""
    shallow(text, where, toml=True)
    try:
        tree = tomllib.loads(text)
    except RecursionError:
        raise out_of_bounds(where, f"is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        if isinstance(exc, tomllib.TOMLDecodeError):
            raise
        raise out_of_bounds(where, f"holds a value out of bounds: {exc}") from None
    clean(tree, where)
    return tree


def number(value: Any, kind: Kind, where: Place, *, low: float, high: float) -> Any:
    """`value` of `kind` (the rule above), finite, within [low, high]."""
    typed(value, kind, where)
    if not math.isfinite(value) or not low <= value <= high:
        raise out_of_bounds(where, f"must lie between {low:g} and {high:g}, got {value!r}")
    return value

"""One rule for the types every file reader accepts (label sets, formats, candidates files).

Python's bool is an int, so a bare `isinstance` lets `true` pass as a count or a threshold;
and TOML and JSON write `1` where a threshold of 1.0 is meant. Hence: a bool is accepted only
where a bool is asked for, never as a number; an int is accepted wherever a float is. The
rule lives here once; each reader words and raises its refusals through its own `Place`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

Kind = type | tuple[type, ...]
"""What a key must hold: one type, or any of several."""


@dataclass(frozen=True)
class Refusal:
    """Why a value was refused: the facts, for the reader to word in its own style."""

    reason: Literal["missing", "not an object", "wrong type"]
    """What went wrong."""
    key: str = ""
    """The key looked up, for a missing key."""
    wanted: str = ""
    """The kinds asked for (`int/float`), for a wrong type."""
    got: str = ""
    """The type found (`bool`), for a wrong type."""

    @property
    def message(self) -> str:
        """The plain wording (`must be int, got bool`), for readers that add nothing."""
        if self.reason == "missing":
            return f"missing key {self.key!r}"
        if self.reason == "not an object":
            return "must be an object"
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

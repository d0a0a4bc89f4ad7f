"""Reading run.json's JSON with its types checked and its key path kept, for the run model.

Every value is read through a `Reader` that knows where it sits (`candidates.c30.metrics`),
so whatever is wrong with a file — a missing key, a string where a number belongs — is one
`RunFileError` naming the file and the key, never a KeyError far from the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import NoReturn, TypeVar, cast

from labeler.core.errors import SpanlabError
from labeler.core.typed import accepts

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)

HINT = "the run folder may be half-written or from another spanlab; run `spanlab eval` again"
"""What to do about a run.json that cannot be read."""

_PLAIN_KEY = re.compile(r"[\w@:-]+")
_KINDS = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"),
          (list, "an array"), (dict, "an object"), (type(None), "null"))  # fmt: skip


class RunFileError(SpanlabError):
    """A run.json that spanlab cannot read: not JSON, or not shaped as a run."""


def kind(value: object) -> str:
    """A JSON value's type in a reader's words (`an array`)."""
    return next((name for t, name in _KINDS if isinstance(value, t)), type(value).__name__)


class Reader:
    """One JSON value of run.json and its key path; each accessor checks the type it reads."""

    __slots__ = ("file", "key", "parent", "value")

    def __init__(
        self, value: object, file: str, parent: Reader | None = None, key: str | int = ""
    ) -> None:
        self.value = value
        """The parsed JSON value."""
        self.file = file
        """The run.json it comes from, for the error."""
        self.parent = parent
        """The object or array holding it; None at the top."""
        self.key = key
        """Its key or index in `parent`."""

    @property
    def path(self) -> str:
        """Where it sits (`queries.q-0001.evidence[0].start`); empty at the top. Built only
        for an error: reading a large run makes a hundred thousand readers."""
        if self.parent is None:
            return ""
        above, key = self.parent.path, self.key
        if isinstance(key, int):
            return f"{above}[{key}]"
        part = key if _PLAIN_KEY.fullmatch(key) else f'["{key}"]'
        return part if not above else f"{above}{'' if part[0] == '[' else '.'}{part}"

    def fail(self, message: str) -> NoReturn:
        raise RunFileError(message, file=self.file, key=self.path or None, hint=HINT)

    def _want(self, what: str) -> NoReturn:
        self.fail(f"must be {what}, not {kind(self.value)}")

    def mapping(self) -> dict[str, object]:
        if not isinstance(self.value, dict):
            self._want("an object")
        return self.value

    def at(self, key: str) -> Reader:
        """The value under `key`; a missing key is an error naming it."""
        found = self.mapping()
        if key not in found:
            Reader(None, self.file, self, key).fail("missing")
        return Reader(found[key], self.file, self, key)

    def items(self) -> list[tuple[str, Reader]]:
        """An object's entries in file order."""
        return [(k, Reader(v, self.file, self, k)) for k, v in self.mapping().items()]

    def array(self) -> list[Reader]:
        if not isinstance(self.value, list):
            self._want("an array")
        return [Reader(v, self.file, self, i) for i, v in enumerate(self.value)]

    def text(self) -> str:
        if not isinstance(self.value, str):
            self._want("a string")
        return self.value

    def integer(self) -> int:
        if not accepts(self.value, int):
            self._want("an integer")
        return cast(int, self.value)

    def number(self) -> float:
        """An integer or a float, kept as the file has it (so it is written back the same)."""
        if not accepts(self.value, float):
            self._want("a number")
        return cast(float, self.value)

    def flag(self) -> bool:
        if not accepts(self.value, bool):
            self._want("a boolean")
        return cast(bool, self.value)

    def choice(self, enum: type[E]) -> E:
        """One of an enumeration's values (`lost`, `cut`)."""
        value = self.text()
        try:
            return enum(value)
        except ValueError:
            self.fail(f"{value!r} is not one of: {', '.join(enum)}")

    def nullable(self, read: Callable[[Reader], T]) -> T | None:
        """`read(self)`, or None when the value is null."""
        return None if self.value is None else read(self)

    def opt_number(self) -> float | None:
        return self.nullable(Reader.number)

    def opt_text(self) -> str | None:
        return self.nullable(Reader.text)

    def numbers(self) -> dict[str, float | None]:
        """An object of figures by name (`metrics`, `deltas`): numbers or null."""
        return {name: r.opt_number() for name, r in self.items()}

    def texts(self) -> tuple[str, ...]:
        return tuple(r.text() for r in self.array())

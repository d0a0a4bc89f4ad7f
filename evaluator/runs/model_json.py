"""Reading run.json's JSON with its types checked and its key path kept, for the run model.

Every value is read through a `Reader` that knows where it sits (`candidates.c30.metrics`),
so whatever is wrong with a file — a missing key, a string where a number belongs — is one
`RunFileError` naming the file and the key, never a KeyError far from the file. A run.json
can come from elsewhere (main's run, a CI artifact): `parse` bounds its nesting and walks every
key and value once, so no control character, NaN or absurd number gets past the edge.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import NoReturn, TypeVar, cast

from evaluator.metrics.registry import SHOWN
from labeler.core.corpus.folder import check_doc_id
from labeler.core.display import BIDI, describe, shown, unsafe_at
from labeler.core.errors import CorpusError, SpanlabError
from labeler.core.typed import MAX_INT, Refusal, accepts

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
        part = key if _PLAIN_KEY.fullmatch(key) else f'["{shown(key, lines=False)}"]'
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

    def prose(self) -> str:
        """Text laid out in lines (a question): newline and tab allowed, and nothing else
        a terminal acts on (`parse` refused that already)."""
        if not isinstance(self.value, str):
            self._want("a string")
        return self.value

    def text(self) -> str:
        """A one-line string (an id, a setting, a hash): no control character at all."""
        value = self.prose()
        if not value.isprintable() and (at := unsafe_at(value)) is not None:  # C first: fast
            self.fail(f"holds {describe(value, at)}")
        return value

    def integer(self) -> int:
        if not accepts(self.value, int):
            self._want("an integer")
        return cast(int, self.value)

    def count(self, most: int | None = None) -> int:
        """An integer from 0 to `most` (a count, an offset, a rank)."""
        found = self.integer()
        if found < 0 or (most is not None and found > most):
            self.fail(f"must lie between 0 and {'any' if most is None else f'{most:,}'}, "
                      f"got {found:,}")  # fmt: skip
        return found

    def number(self, least: float | None = None, most: float | None = None) -> float:
        """An integer or a float, kept as the file has it (so it is written back the same),
        within [least, most] where given (`parse` refused NaN and infinities already)."""
        if not accepts(self.value, float):
            self._want("a number")
        found = cast(float, self.value)
        if (least is not None and found < least) or (most is not None and found > most):
            self.fail(f"must lie between {least if least is not None else '-any'} and "
                      f"{most if most is not None else 'any'}, got {found!r}")  # fmt: skip
        return found

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
        """An object of differences by name (`deltas`): numbers or null."""
        return {name: r.opt_number() for name, r in self.items()}

    def figure(self, name: str) -> float | None:
        """Figure `name` (a measure's or an index figure's), null, or a number within what
        the figure can be (a share in [0, 1], a count at least 0); unknown: any number."""
        bounds = SHOWN.get(name)
        if bounds is None or self.value is None:
            return self.opt_number()
        return self.number(bounds.least, bounds.most)

    def figures(self) -> dict[str, float | None]:
        """An object of figures by name (`metrics`), each as `figure` reads it."""
        return {name: r.figure(name) for name, r in self.items()}

    def doc(self) -> str:
        """A document id as the corpus allows it (§13: no control, no `..`)."""
        found = self.text()
        if (problem := _doc_problem(found)) is not None:
            self.fail(problem)
        return found

    def at_most(self, most: int, what: str) -> list[Reader]:
        """An array of at most `most` items (`what` the run declares it by); checked before
        a reader is made for each."""
        if isinstance(self.value, list) and len(self.value) > most:
            self.fail(f"holds {len(self.value):,} items, more than {what} ({most:,})")
        return self.array()

    def texts(self) -> tuple[str, ...]:
        return tuple(r.text() for r in self.array())


@functools.lru_cache(maxsize=4096)
def _doc_problem(doc: str) -> str | None:
    """What `check_doc_id` says of `doc`, once per id: a run names a few documents a
    hundred thousand times."""
    try:
        check_doc_id(doc)
    except CorpusError as exc:
        return exc.message
    return None


class _Huge:
    """An integer literal with more digits than any count needs, kept for the walk to
    refuse by key (Python would spend seconds on a 100,000-digit literal)."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _int(literal: str) -> int | _Huge:
    digits = len(literal.lstrip("-"))
    return _Huge(digits) if digits > 16 else int(literal)


def _trouble(value: object) -> str | None:
    """What no value of a run.json may be, or None."""
    if isinstance(value, str):
        at = unsafe_at(value, lines=True)
        return None if at is None else f"holds {describe(value, at)}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"is {json.dumps(value)}, not a finite number"
    if isinstance(value, _Huge):
        return f"is a {value.digits:,}-digit integer, beyond {MAX_INT:,}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        return f"is beyond the largest number a run may hold ({MAX_INT:,})"
    return None


def _walk(value: object) -> Iterator[tuple[tuple[str | int, ...], object, bool]]:
    """(key path, value, whether it is a key) for everything below `value`, in file order,
    iteratively (a deep tree is no RecursionError)."""
    stack: list[tuple[tuple[str | int, ...], object]] = [((), value)]
    while stack:
        path, item = stack.pop()
        yield path, item, False
        if isinstance(item, dict):
            for key in item:
                yield (*path, key), key, True
            stack.extend(((*path, k), child) for k, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*path, i), item[i]) for i in reversed(range(len(item))))


@dataclass(frozen=True)
class Whole:
    """run.json as a whole, where the shared bounds refuse it (labeler.core.typed)."""

    file: str
    """The run.json."""

    def at(self, key: str) -> Whole:
        return self

    def refuse(self, refusal: Refusal) -> RunFileError:
        return RunFileError(f"the run file {refusal.message}", file=self.file, hint=HINT)


_SUSPECT = re.compile(
    f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}\u2028\u2029\ufffe\uffff]"
    r"|\\[bfr]|\\u(?:00[01]|007f|008|009|061c|200[ef]|202|206|d[89a-f]|fff[ef])"
    r"|[:,\[\s]-?[0-9]{17,}[\s,\]}]",
    re.IGNORECASE,
)
"""What in run.json's text may parse into a value `_trouble` refuses: a raw unsafe code
point, an escape that makes one, an integer of 17 digits or more. A file without any, and
without NaN or infinity (every run spanlab writes), skips the walk."""


def parse(text: str, file: str) -> object:
    """run.json's text as JSON, checked whole: no key or value anywhere a control character,
    NaN, an infinity or an absurd integer (the error names its key path:
    `candidates.c30.metrics.hit@k`). Nesting is bounded by the parser's own recursion limit
    (a RecursionError, refused here; the reader walks iteratively and reads every typed part
    at a fixed depth). A syntax error stays a JSONDecodeError for the caller to word."""
    seen: list[object] = []

    def constant(name: str) -> float:
        seen.append(name)
        return float(name)

    try:
        try:
            tree = json.loads(text, parse_constant=constant)
        except ValueError as exc:  # an integer over Python's 4,300 digits: name its key
            if isinstance(exc, json.JSONDecodeError):
                raise
            tree = json.loads(text, parse_int=_int, parse_constant=constant)
            seen.append(exc)
    except RecursionError:
        deep = Refusal("out of bounds", detail="is nested too deep to read")
        raise Whole(file).refuse(deep) from None
    if seen or _SUSPECT.search(text) is not None:  # the walk only for a file that needs it
        _refuse_trouble(tree, file)
    return tree


def _refuse_trouble(tree: object, file: str) -> None:
    """Raise RunFileError at the first key or value in `tree` that `_trouble` refuses."""
    for path, value, is_key in _walk(tree):
        if (problem := _trouble(value)) is not None:
            where = Reader(tree, file)
            for key in path:
                where = Reader(None, file, where, key)
            where.fail(f"{'the key ' if is_key else ''}{problem}")

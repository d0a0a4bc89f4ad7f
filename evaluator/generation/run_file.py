"""The run folder's answers, `generation.jsonl` (§23): one frozen record per query ×
candidate — the numbered sources sent (offsets only), the answer as shown, its citations,
each check's value and items, the labelled facts and whether each was stated.

This module is the file's one owner: `answers_jsonl` makes its text (the run folder's
writer puts it beside run.json through the one helper for run files) and `read_answers`
reads it back, types checked, naming file and line. Every string from outside (the answer,
an item, a fact) is stored after the display rule and JSON-escaped to ASCII, so no byte of
the file acts on a terminal; the reader refuses a string that would.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from labeler.core.display import shown, unsafe_at
from labeler.core.errors import SpanlabError
from labeler.core.files.reading import read_bounded
from labeler.core.typed import Refusal

FORMAT = "spanlab.generation/1"
"""The first line's `format`."""
FILE_NAME = "generation.jsonl"
"""Its name in the run folder, beside run.json."""
MAX_FILE = 1024 * 1024 * 1024
"""Bytes read at most (answers are bounded by the client; this bounds the file)."""
OUTCOMES = ("answered", "refused", "timeout", "too large", "bad JSON", "bad shape",
            "HTTP error", "unreachable", "not asked")  # fmt: skip
"""A record's outcome: answered, refused, or why no answer was had (client.FAILURES)."""
CHECKS = ("citation_precision", "citation_recall", "unsupported", "completeness",
          "abstention", "repeated_sentences")  # fmt: skip
"""Every deterministic check a record carries, in this order."""


class GenerationFileError(SpanlabError):
    """A generation.jsonl spanlab cannot read: not JSON lines, or not shaped as answers."""


@dataclass(frozen=True)
class SentSource:
    """One numbered source as sent: where it came from, and the evidence it holds."""

    number: int
    """1-based, as the answer cites it."""
    doc: str
    start: int
    end: int
    evidence: tuple[int, ...]
    """Indices of the query's evidence spans this source holds (the run's match rule)."""


@dataclass(frozen=True)
class CheckRecord:
    """One check's value for one answer, and what it lists."""

    name: str
    """One of CHECKS."""
    value: float | None
    """None when the check does not apply (no facts, nothing cited, evidence partly held)."""
    items: tuple[str, ...] = ()
    """What it lists, as shown: unsupported items (`number: 42`), repeated sentences,
    unknown citations (`[99]`)."""


@dataclass(frozen=True)
class FactRecord:
    """One labelled fact and whether the answer stated it."""

    alternatives: tuple[str, ...]
    """Each enough on its own, as shown."""
    stated: bool


@dataclass(frozen=True)
class AnswerRecord:
    """One query asked through one candidate: what was sent, answered and judged."""

    query: str
    candidate: str
    outcome: str
    """One of OUTCOMES."""
    cached: bool
    """The answer came from the answer cache (the server was not asked)."""
    sources: tuple[SentSource, ...]
    answer: str
    """The answer after the display rule (`shown`); empty without one."""
    cited: tuple[int, ...]
    """Distinct source numbers cited that the prompt had, in order first cited."""
    unknown: tuple[int, ...]
    """Numbers cited that no source has (`[99]`)."""
    checks: tuple[CheckRecord, ...]
    """Every check of CHECKS, in order; empty without an answer."""
    facts: tuple[FactRecord, ...]
    message: str = ""
    """Why there is no answer (redacted, shown); empty with one."""

    def check(self, name: str) -> CheckRecord | None:
        return next((c for c in self.checks if c.name == name), None)

    def value(self, name: str) -> float | None:
        found = self.check(name)
        return None if found is None else found.value

    @property
    def overlapping(self) -> int:
        """Pairs of sources from one document whose ranges overlap: a context that sends
        some text twice (duplicate chunks) and less of anything else."""
        s = self.sources
        return sum(
            a.doc == b.doc and min(a.end, b.end) > max(a.start, b.start)
            for i, a in enumerate(s) for b in s[i + 1 :]
        )  # fmt: skip


def answers_jsonl(records: Iterable[AnswerRecord]) -> str:
    """The file's text: the format line, then one record a line, ASCII (escapes visible)."""
    lines = [json.dumps({"format": FORMAT})]
    lines += [json.dumps(_as_json(r), ensure_ascii=True, allow_nan=False) for r in records]
    return "\n".join(lines) + "\n"


def digest(text: str) -> str:
    """`sha256:` of the file's text, as run.json records it."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def safe(text: str) -> str:
    """Outside text as the file keeps it: the display rule, newlines and tabs kept."""
    return shown(text)


def _as_json(r: AnswerRecord) -> dict[str, Any]:
    return {
        "query": r.query, "candidate": r.candidate, "outcome": r.outcome, "cached": r.cached,
        "sources": [[s.number, s.doc, s.start, s.end, list(s.evidence)] for s in r.sources],
        "answer": safe(r.answer), "cited": list(r.cited), "unknown": list(r.unknown),
        "checks": [[c.name, c.value, [safe(i) for i in c.items]] for c in r.checks],
        "facts": [[[safe(a) for a in f.alternatives], f.stated] for f in r.facts],
        "message": safe(r.message),
    }  # fmt: skip


@dataclass(frozen=True)
class _Line:
    file: str
    line: int

    def at(self, key: str) -> _Line:
        return self

    def refuse(self, refusal: Refusal) -> GenerationFileError:
        return self.error(refusal.message)

    def error(self, message: str, key: str | None = None) -> GenerationFileError:
        return GenerationFileError(message, file=self.file, line=self.line, key=key,
                                   hint="run `spanlab eval` again")  # fmt: skip


def read_answers(folder: Path, expected: str | None = None) -> tuple[AnswerRecord, ...]:
    """generation.jsonl in `folder` (no link followed); `expected`: run.json's sha256 of it,
    checked. A file out of shape raises GenerationFileError naming the line and key."""
    path = folder / FILE_NAME
    try:
        raw = read_bounded(path, MAX_FILE, _Line(str(path), 0), follow=False)
    except FileNotFoundError:
        raise GenerationFileError("no answers beside the run", file=str(path)) from None
    except OSError as exc:
        raise GenerationFileError(f"cannot read the answers: {exc.strerror or exc}",
                                  file=str(path)) from None  # fmt: skip
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GenerationFileError("not UTF-8", file=str(path), offset=exc.start) from None
    if expected is not None and digest(text) != expected:
        raise _Line(str(path), 0).error("the answers do not match their run.json (changed "
                                        "after the run)")  # fmt: skip
    return parse_answers(text, str(path))


def parse_answers(text: str, file: str) -> tuple[AnswerRecord, ...]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or _load(lines[0], _Line(file, 1)) != {"format": FORMAT}:
        raise _Line(file, 1).error(f'the first line must be {{"format": "{FORMAT}"}}')
    return tuple(_record(_load(s, _Line(file, n)), _Line(file, n))
                 for n, s in enumerate(lines[1:], start=2))  # fmt: skip


def _load(line: str, at: _Line) -> Any:
    try:
        return json.loads(line, parse_constant=lambda c: at.error(f"{c} is not a number"))
    except json.JSONDecodeError as exc:
        raise at.error(f"not JSON ({exc.msg}, column {exc.colno})") from None
    except ValueError:  # a number of more than 4,300 digits
        raise at.error("holds a number too long to read") from None
    except RecursionError:
        raise at.error("nested too deeply to read") from None


T = TypeVar("T")


def _get(obj: Any, key: str, kind: type[T] | tuple[type, ...], at: _Line) -> T:
    if not isinstance(obj, dict) or key not in obj:
        raise at.error("missing", key)
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise at.error("wrong type", key)
    return value  # type: ignore[return-value]


def _text(value: Any, at: _Line, key: str) -> str:
    if not isinstance(value, str) or len(value) > 1_000_000:
        raise at.error("must be text (at most 1,000,000 characters)", key)
    if unsafe_at(value, lines=True) is not None:
        raise at.error("holds a character the display rule escapes (not written by spanlab)",
                       key)  # fmt: skip
    return value


def _ints(value: Any, at: _Line, key: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**53 for v in value
    ):
        raise at.error("must be a list of whole numbers", key)
    return tuple(value)


def _each(
    value: Any, at: _Line, key: str, make: Callable[[list[Any]], T], size: int
) -> tuple[T, ...]:
    if not isinstance(value, list) or not all(isinstance(v, list) and len(v) == size
                                              for v in value):  # fmt: skip
        raise at.error(f"must be a list of {size}-item lists", key)
    return tuple(make(v) for v in value)


def _record(obj: Any, at: _Line) -> AnswerRecord:
    outcome = _get(obj, "outcome", str, at)
    if outcome not in OUTCOMES:
        raise at.error(f"outcome must be one of {', '.join(OUTCOMES)}", "outcome")
    return AnswerRecord(
        query=_text(_get(obj, "query", str, at), at, "query"),
        candidate=_text(_get(obj, "candidate", str, at), at, "candidate"),
        outcome=outcome,
        cached=_get(obj, "cached", bool, at),
        sources=_each(obj.get("sources"), at, "sources", lambda v: _source(v, at), 5),
        answer=_text(obj.get("answer"), at, "answer"),
        cited=_ints(obj.get("cited"), at, "cited"),
        unknown=_ints(obj.get("unknown"), at, "unknown"),
        checks=_each(obj.get("checks"), at, "checks", lambda v: _check(v, at), 3),
        facts=_each(obj.get("facts"), at, "facts", lambda v: _fact(v, at), 2),
        message=_text(obj.get("message"), at, "message"),
    )


def _source(v: list[Any], at: _Line) -> SentSource:
    n, doc, start, end, evidence = v
    a, b, c = _ints([n, start, end], at, "sources")
    if not a >= 1 or b > c:
        raise at.error("a source's number starts at 1 and its range must not end before it "
                       "starts", "sources")  # fmt: skip
    return SentSource(a, _text(doc, at, "sources"), b, c, _ints(evidence, at, "sources"))


def _check(v: list[Any], at: _Line) -> CheckRecord:
    name, value, items = v
    if name not in CHECKS:
        raise at.error(f"a check must be one of {', '.join(CHECKS)}", "checks")
    if value is not None and (not isinstance(value, int | float) or isinstance(value, bool)):
        raise at.error("a check's value must be a number or null", "checks")
    if not isinstance(items, list):
        raise at.error("a check's items must be a list", "checks")
    said = tuple(_text(i, at, "checks") for i in items)
    return CheckRecord(name, None if value is None else float(value), said)


def _fact(v: list[Any], at: _Line) -> FactRecord:
    alternatives, stated = v
    if not isinstance(alternatives, list) or not isinstance(stated, bool):
        raise at.error("a fact is [alternatives, stated]", "facts")
    return FactRecord(tuple(_text(a, at, "facts") for a in alternatives), stated)


def by_query(records: Sequence[AnswerRecord]) -> dict[str, dict[str, AnswerRecord]]:
    """Query id -> candidate name -> its record (the triage view's lookup)."""
    out: dict[str, dict[str, AnswerRecord]] = {}
    for r in records:
        out.setdefault(r.query, {})[r.candidate] = r
    return out

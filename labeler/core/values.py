"""Queries and evidence spans as plain, validated values (design §3).

They are frozen and do no I/O; the store takes and returns them. Validation happens when
a value is built, so nothing invalid reaches the database or a label file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import InitVar, dataclass, field, replace
from enum import StrEnum

from labeler.core.display import describe, unsafe_at
from labeler.core.errors import LabelError
from labeler.core.facts import check_facts
from labeler.core.names import name_problem
from labeler.core.text.graphemes import check_edges
from labeler.core.typed import MAX_INT

CONTEXT = 32
"""Code points of prefix and suffix kept beside a quote."""
MAX_QUERY_TEXT = 10_000
"""Longest question (code points): a question is a sentence or a paragraph, not a file."""
MAX_NOTES = 100_000
"""Longest notes (code points)."""
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
"""NUL, and lone surrogates (no UTF-8 form): text no file or database can hold."""


def _check_text(qid: str, key: str, value: str, limit: int, *, stored: bool = False) -> None:
    if len(value) > limit:
        raise LabelError(
            f"query {qid}: {key} is {len(value):,} characters, over the limit of {limit:,}",
            key=key,
        )
    if bad := _UNSTORABLE.search(value):
        what = "a NUL character" if bad.group() == "\x00" else "a lone surrogate"
        raise LabelError(f"query {qid}: {key} holds {what}", key=key, offset=bad.start())
    if not stored:
        check_plain(qid, key, value)


def check_changed(query: Query, keys: Iterable[str]) -> None:
    """The rules for new text and names, on the fields `keys` of a query built from a
    stored row (`stored=True`): what an edit changes is checked, the rest kept as stored."""
    for key in keys:
        if key in ("text", "notes"):
            check_plain(query.id, key, getattr(query, key))
        elif key == "slices" and (bad := [s for s in query.slices if not valid_slice(s)]):
            raise LabelError(f"query {query.id}: invalid slice {bad[0]!r}", key="slices")


def check_plain(qid: str, key: str, value: str) -> None:
    """Refuse a question or notes holding a control character (the readers' rule)."""
    if (at := control_at(value)) is not None:
        raise LabelError(f"query {qid}: {key} holds {describe(value, at)}", key=key, offset=at)


def control_at(text: str) -> int | None:
    """Where `text` holds a control character, ESC sequence or bidi control (newline and
    tab excepted): the rule every reader applies to questions and notes, so the store never
    takes text a terminal would act on (§13). None when there is none."""
    return unsafe_at(text, lines=True)


class Boundary(StrEnum):
    """The boundary pattern a query exercises."""

    CONDITION_CONSEQUENCE = "condition-consequence"
    HEADING_PARAGRAPH = "heading-paragraph"
    LIST_INTRO_ITEM = "list-intro-item"
    TABLE_HEADER_ROW = "table-header-row"
    CROSS_REFERENCE = "cross-reference"
    CODE_EXPLANATION_SNIPPET = "code-explanation-snippet"
    CONTROL = "control"
    OTHER = "other"


class Status(StrEnum):
    DRAFT = "draft"
    LABELLED = "labelled"
    REVIEWED = "reviewed"


class SpanState(StrEnum):
    VALID = "valid"
    STALE = "stale"
    ORPHANED = "orphaned"


_QUERY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
_SLICE = re.compile(r"[^\s,\x00-\x1f\x7f\ud800-\udfff]{1,64}")
"""A slice name: no white space, comma, control character or lone surrogate (which no
file could hold: a surrogate in a slice made every later export fail)."""


def group_problem(group: object) -> str | None:
    """Why `group` is no group number (§18): a positive integer a run can hold (≤ 2**53,
    what every JSON reader keeps exact); None when it is one."""
    if not isinstance(group, int) or isinstance(group, bool) or group < 1:
        return f"must be a positive integer, got {group!r}"
    return f"must be at most {MAX_INT:,}, got {group}" if group > MAX_INT else None


def valid_query_id(qid: str) -> bool:
    """A query id: a letter or digit, then up to 63 of letters, digits and `._:-`."""
    return _QUERY_ID.fullmatch(qid) is not None


def valid_slice(name: str) -> bool:
    """A slice name: a name (labeler.core.names) with no white space or comma."""
    return _SLICE.fullmatch(name) is not None and name_problem(name) is None


def annotator_problem(name: str) -> str | None:
    """What is wrong with an annotator's name (empty means nobody in particular)."""
    return None if not name else name_problem(name)


def parse_boundary(value: str, *, key: str = "boundary") -> Boundary:
    try:
        return Boundary(value)
    except ValueError:
        allowed = ", ".join(b.value for b in Boundary)
        raise LabelError(
            f"unknown boundary pattern {value!r} (one of: {allowed})", key=key
        ) from None


def parse_status(value: str, *, key: str = "status") -> Status:
    try:
        return Status(value)
    except ValueError:
        allowed = ", ".join(s.value for s in Status)
        raise LabelError(f"unknown status {value!r} (one of: {allowed})", key=key) from None


def context_of(text: str, start: int, end: int) -> tuple[str, str]:
    """The prefix and suffix of up to CONTEXT code points around text[start:end]."""
    return text[max(0, start - CONTEXT) : start], text[end : end + CONTEXT]


@dataclass(frozen=True)
class Span:
    """Evidence: `quote == canonical_text(doc)[start:end]`, offsets in code points."""

    doc: str
    """Document id: POSIX path relative to the corpus folder."""
    start: int
    """First code point of the quote."""
    end: int
    """One past the last code point."""
    quote: str
    """The exact text between start and end."""
    prefix: str = ""
    """Up to 32 code points before start."""
    suffix: str = ""
    """Up to 32 code points after end."""
    doc_hash: str = ""
    """The hash of the document text the span was made on."""
    annotator: str = ""
    """Who drew it."""
    created: str = ""
    """ISO-8601 UTC time it was drawn."""
    id: int | None = None
    """Row id in the store, when it came from one."""
    group: int | None = None
    """Its group of alternatives in its query (§18): spans sharing a number are copies of
    one fact, any of which will do; None is a group of its own."""

    def __post_init__(self) -> None:
        if self.group is not None and group_problem(self.group) is not None:
            raise LabelError(f"group {group_problem(self.group)}", key="group")
        if not self.doc:
            raise LabelError("span has no document id", key="doc")
        if not (0 <= self.start < self.end):
            raise LabelError(
                f"span offsets must satisfy 0 <= start < end, got {self.start}..{self.end}",
                key="start",
                offset=self.start,
            )
        if len(self.quote) != self.end - self.start:
            raise LabelError(
                f"quote has {len(self.quote)} code points but end - start = "
                f"{self.end - self.start}",
                key="quote",
                offset=self.start,
            )

    @classmethod
    def from_text(
        cls,
        text: str,
        doc: str,
        start: int,
        end: int,
        *,
        doc_hash: str = "",
        annotator: str = "",
        created: str = "",
        whole_clusters: bool = True,
    ) -> Span:
        """Build a span from canonical text, checking the offsets against it.

        Its edges must lie on grapheme cluster boundaries (§13) unless `whole_clusters` is
        False, which only readers of spans made earlier (a run's evidence) pass.
        """
        if 0 <= start < len(text) and end <= start:
            raise LabelError(
                f"span {start}..{end} in {doc} is empty or reversed", key="end", offset=end
            )
        if not (0 <= start < end <= len(text)):
            raise LabelError(
                f"span {start}..{end} is outside {doc} (length {len(text)})",
                key="start" if not 0 <= start < len(text) else "end",
                offset=start if not 0 <= start < len(text) else end,
            )
        if whole_clusters:
            check_edges(text, doc, start, end)
        prefix, suffix = context_of(text, start, end)
        return cls(doc, start, end, text[start:end], prefix, suffix, doc_hash, annotator, created)

    def check(self, text: str) -> None:
        """Raise unless `text[start:end] == quote` (the rule every write path keeps)."""
        if self.end > len(text):
            raise LabelError(
                f"span {self.start}..{self.end} is outside {self.doc} (length {len(text)})",
                key="end",
                offset=self.end,
            )
        found = text[self.start : self.end]
        if found != self.quote:
            raise LabelError(
                f"quote does not match {self.doc} at {self.start}..{self.end}: "
                f"expected {self.quote[:40]!r}, text has {found[:40]!r}",
                key="quote",
                offset=self.start,
            )

    def state_in(self, text: str | None) -> SpanState:
        """Valid when the quote and its context are still at the same offsets (§3)."""
        if text is None:
            return SpanState.ORPHANED
        if text[self.start : self.end] != self.quote:
            return SpanState.STALE
        if context_of(text, self.start, self.end) != (self.prefix, self.suffix):
            return SpanState.STALE
        return SpanState.VALID

    def moved(self, text: str, start: int, end: int) -> Span:
        """The same span re-drawn at new offsets in `text`."""
        prefix, suffix = context_of(text, start, end)
        return replace(
            self, start=start, end=end, quote=text[start:end], prefix=prefix, suffix=suffix
        )


@dataclass(frozen=True)
class Query:
    """A question with its labels. An abstention query has no evidence."""

    id: str
    """Stable id such as `q-0007`."""
    text: str
    """The question as a user would ask it."""
    abstain: bool = False
    """True when the corpus holds no answer."""
    boundary: Boundary = Boundary.OTHER
    """The boundary pattern this query exercises."""
    slices: tuple[str, ...] = ()
    """Free tags (`critical`, `tables`, `lang:de`), sorted and unique."""
    notes: str = ""
    """Free text for annotators."""
    status: Status = Status.DRAFT
    """draft, labelled or reviewed."""
    annotator: str = ""
    """Who created the query."""
    created: str = ""
    """ISO-8601 UTC creation time."""
    updated: str = ""
    """ISO-8601 UTC time of the last edit."""
    evidence: tuple[Span, ...] = field(default=())
    """The spans that answer it, in document then offset order."""
    revision: int = 0
    """The store's edit counter for this query (0 when it never came from a store)."""
    filter: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """The query's own metadata filter (§24), as a label set carries it: `path` globs and
    front-matter fields, each with its values; the evaluator reads what they mean."""
    facts: tuple[tuple[str, ...], ...] = ()
    """The facts a complete answer states (§23): each a tuple of alternative phrasings, the
    first the preferred one."""
    stored: InitVar[bool] = False
    """True only for a row read back from a store: text stored before the control-character
    rule still loads (and is shown escaped); everything new is checked."""

    def __post_init__(self, stored: bool) -> None:
        if not valid_query_id(self.id):
            raise LabelError(f"invalid query id {self.id!r}", key="id")
        if not self.text.strip():
            raise LabelError(f"query {self.id} has empty text", key="text")
        _check_text(self.id, "text", self.text, MAX_QUERY_TEXT, stored=stored)
        _check_text(self.id, "notes", self.notes, MAX_NOTES, stored=stored)
        if not stored and (problem := annotator_problem(self.annotator)):
            raise LabelError(f"query {self.id}: annotator name {problem}", key="annotator")
        # Callers such as `Store.update_query(boundary="control")` may pass plain strings.
        object.__setattr__(self, "boundary", parse_boundary(self.boundary))
        object.__setattr__(self, "status", parse_status(self.status))
        for s in self.slices:  # a stored slice keeps the rule it was stored under
            if not (_SLICE.fullmatch(s) if stored else valid_slice(s)):
                raise LabelError(f"query {self.id}: invalid slice {s!r}", key="slices")
        object.__setattr__(self, "slices", tuple(sorted(set(self.slices))))
        if self.abstain and self.evidence:
            raise LabelError(
                f"query {self.id} is an abstention query but has evidence", key="abstain"
            )
        object.__setattr__(
            self, "evidence", tuple(sorted(self.evidence, key=lambda s: (s.doc, s.start, s.end)))
        )
        check_alternatives(self.id, self.evidence)
        check_filter(self.id, self.filter)
        check_facts(self.id, self.facts, abstain=self.abstain)

    @property
    def answerable(self) -> bool:
        return not self.abstain and bool(self.evidence)


MAX_FILTER_KEYS = 20
"""Most keys a query's filter may hold."""
MAX_FILTER_VALUES = 100
"""Most values one key may list."""
_FILTER_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")


def check_filter(qid: str, found: tuple[tuple[str, tuple[str, ...]], ...]) -> None:
    """A query filter's shape: named keys, each with 1 to MAX_FILTER_VALUES short texts."""
    if len(found) > MAX_FILTER_KEYS or len({k for k, _ in found}) != len(found):
        raise LabelError(f"query {qid}: filter must hold 1 to {MAX_FILTER_KEYS} distinct keys",
                         key="filter")  # fmt: skip
    for key, values in found:
        if not _FILTER_KEY.fullmatch(key):
            raise LabelError(f"query {qid}: filter key {key[:64]!r} is not a field name",
                             key="filter")  # fmt: skip
        if not 1 <= len(values) <= MAX_FILTER_VALUES or not all(
            isinstance(v, str) and 0 < len(v) <= 256 and "\0" not in v for v in values
        ):
            raise LabelError(f"query {qid}: filter.{key} must hold 1 to {MAX_FILTER_VALUES} "
                             "texts of 1 to 256 characters", key=f"filter.{key}")  # fmt: skip


def same_quote(a: str, b: str) -> bool:
    """Two copies of one fact: the same quote, white space aside (a line may wrap
    differently in each document)."""
    return a == b or a.split() == b.split()


def check_alternatives(qid: str, evidence: tuple[Span, ...]) -> None:
    """Spans of one group are copies of one fact (§18): their quotes must match."""
    first: dict[int, int] = {}
    for i, s in enumerate(evidence):
        if s.group is None:
            continue
        j = first.setdefault(s.group, i)
        o = evidence[j]
        if not same_quote(o.quote, s.quote):
            raise LabelError(
                f"query {qid}: evidence[{i}] ({s.doc} {s.start}..{s.end}) is an alternative "
                f"in group {s.group}, but its quote {s.quote[:40]!r} does not match "
                f"{o.quote[:40]!r} ({o.doc} {o.start}..{o.end})",
                key=f"evidence[{i}].group",
            )


def evidence_groups(evidence: tuple[Span, ...]) -> tuple[tuple[int, ...], ...]:
    """The query's groups as indices into `evidence`, in order of first appearance: spans
    sharing a group number together, each span without one alone (§18)."""
    out: list[list[int]] = []
    at: dict[int, int] = {}
    for i, s in enumerate(evidence):
        if s.group is None:
            out.append([i])
        elif s.group in at:
            out[at[s.group]].append(i)
        else:
            at[s.group] = len(out)
            out.append([i])
    return tuple(tuple(g) for g in out)


def uses_groups(queries: Iterable[Query]) -> bool:
    """Whether any query's evidence carries a group number."""
    return any(s.group is not None for q in queries for s in q.evidence)

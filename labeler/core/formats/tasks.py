"""The shape every text-span tool's record is read into, and how records become queries.

doccano, Prodigy, Argilla and Label Studio's JSON-MIN/CSV all hold a text (or a document
id), a question somewhere, and spans in the tool's own offset unit. Each reader only
finds those pieces; this module places the text in the corpus, turns offsets into
canonical code points (units detected and counted in a UnitReport, every quote checked)
and merges records of one query, so the rules are written once for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from labeler.core.corpus.canonical import canonicalize
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import Imported
from labeler.core.formats._common import (
    QUESTION,
    FreshIds,
    RawView,
    Where,
    raw_span,
    text_key,
    valid_id,
)
from labeler.core.formats.offsets import UnitReport, UnitView
from labeler.core.progress import TaskFactory, each, no_task
from labeler.core.store.rows import Version
from labeler.core.values import Query, Span, Status, annotator_problem

T = TypeVar("T")


@dataclass(frozen=True)
class SpanIn:
    """A span as the tool wrote it."""

    start: int
    """Start, in the tool's unit."""
    end: int
    """End, exclusive, in the tool's unit."""
    quote: str | None
    """The text the tool says the span holds, when it says."""
    where: Where
    """Where it sits in the file."""
    group: int | None = None
    """Its group of alternatives (§18), where the file says."""


@dataclass(frozen=True)
class TaskIn:
    """One record of a tool's file."""

    where: Where
    """The record."""
    question: str | None
    """The question, if the record holds one."""
    spans: tuple[SpanIn, ...]
    """Evidence spans, already filtered to what counts (accepted answers, say)."""
    text: str | None = None
    """The text the offsets index, when the record carries it."""
    doc: str | None = None
    """The document id, when the record names it."""
    query_id: str | None = None
    """The spanlab query id, when the record carries one (a file spanlab wrote)."""
    annotator: str = ""
    """Who made the annotation."""
    annotator_key: str = "annotator"
    """The record's key that names who, for errors about the name."""
    task_id: str | None = None
    """The tool's task id, when rows of one task (one per annotator) carry it."""
    facts: tuple[tuple[str, ...], ...] = ()
    """The query's facts (§23), when the record carries them (a file spanlab wrote)."""


@dataclass
class Reading:
    """One import in progress: the corpus, the unit order and what to report."""

    corpus: Corpus
    """The corpus the records refer to."""
    order: tuple[str, ...]
    """Units to try first: the tool's own."""
    format: str
    """The format name, also the slice imported queries get."""
    units: UnitReport = field(default_factory=UnitReport)
    """Units seen and spans remapped."""
    warnings: list[str] = field(default_factory=list)
    """What the user should know."""
    _by_text: dict[str, list[str]] = field(default_factory=dict)

    def document(self, task: TaskIn) -> tuple[str, str]:
        """(doc id, the raw text offsets count in) for a record."""
        if task.doc is not None and task.doc not in self.corpus:
            raise task.where.error(f"document {task.doc!r} is not in the corpus")
        if task.text is None:
            if task.doc is None:
                raise task.where.error("the record has spans but no text and no document")
            return task.doc, self.corpus.text(task.doc)
        canonical = canonicalize(task.text.removeprefix("\ufeff"))
        if task.doc is not None:
            if canonical != self.corpus.text(task.doc):
                raise task.where.error(f"the record's text differs from document {task.doc}")
            return task.doc, task.text
        return self._by_content(canonical, task.where), task.text

    def _by_content(self, canonical: str, where: Where) -> str:
        if not self._by_text:
            for d in self.corpus:
                self._by_text.setdefault(d.text, []).append(d.id)
        docs = self._by_text.get(canonical, [])
        if len(docs) != 1:
            problem = "matches no document" if not docs else f"matches {', '.join(docs)}"
            raise where.error(f"the record's text {problem}; name the document in 'doc'")
        return docs[0]

    def spans(self, task: TaskIn) -> list[Span]:
        if not task.spans:
            return []
        doc, raw = self.document(task)
        units, view = UnitView(raw), RawView(raw)
        return [self._span(units, view, doc, s) for s in task.spans]

    def _span(self, units: UnitView, view: RawView, doc: str, span: SpanIn) -> Span:
        found = self.units.resolve(units, span.start, span.end, span.quote, self.order)
        if found is None:
            quoted = f" holding {span.quote[:40]!r}" if span.quote is not None else ""
            raise span.where.error(
                f"no offset unit places {span.start}..{span.end}{quoted} in {doc} "
                "(tried code points, UTF-16 code units, UTF-8 bytes, grapheme clusters)",
                offset=span.start,
            )
        made = raw_span(view, doc, found[0], found[1], None, span.where)
        return made if span.group is None else replace(made, group=span.group)


@dataclass
class Skipping:
    """`--skip-bad`: a record whose fields cannot be read is skipped and counted, its
    refusal kept for the warnings, never dropped unsaid; without it the first refuses."""

    on: bool = False
    """Whether bad records are skipped (else the first one is the error)."""
    refusals: list[LabelError] = field(default_factory=list)
    """What each skipped record was refused for."""

    def read(self, make: Callable[[], T]) -> T | None:
        """What `make` reads of a record, or None when it is bad and skipping is on."""
        try:
            return make()
        except LabelError as exc:
            if not self.on:
                raise
            self.refusals.append(exc)
            return None

    def kept(self, found: Iterable[TaskIn | None]) -> list[TaskIn]:
        return [t for t in found if t is not None]

    def told(self, imported: Imported) -> Imported:
        """`imported` with the skipped records counted in its summary and named one by one
        in its warnings."""
        if not self.refusals:
            return imported
        count = f"skipped {len(self.refusals)} record(s) that cannot be read (--skip-bad)"
        summary = f"{imported.summary}; {count}" if imported.summary else count
        said = tuple(f"skipped: {exc}" for exc in self.refusals)
        return replace(imported, warnings=(*imported.warnings, *said), summary=summary)


def some_records(count: int, file: str) -> None:
    """Refuse a file without a single record: an empty export imports nothing, which is
    a wrong file far more often than a wish (§13: never a silent success)."""
    if count == 0:
        raise LabelError("the file holds no records: nothing to import", file=file)


def _key(task: TaskIn, question: str) -> str:
    return f"id:{task.query_id}" if task.query_id else f"text:{text_key(question)}"


def _question(task: TaskIn, looked: str) -> str:
    text = canonicalize(task.question or "").strip()
    if not text:
        raise task.where.error(f"the record has no question (looked for {looked})")
    return text


@dataclass
class _Group:
    """The records of one query: each annotator's spans, and who annotated each task."""

    first: TaskIn
    """The first record."""
    question: str
    """The question."""
    by_who: dict[str, list[Span]] = field(default_factory=dict)
    """{annotator: their spans, in every document of the query}."""
    units: dict[str, set[str]] = field(default_factory=dict)
    """{task (its id, document or text): annotators who annotated it}."""

    def add(self, task: TaskIn, spans: list[Span]) -> None:
        self.by_who.setdefault(task.annotator, []).extend(spans)
        unit = task.task_id or task.doc or text_key(task.text or "")
        self.units.setdefault(unit, set()).add(task.annotator)

    @property
    def double(self) -> bool:
        """Double-annotated: some task of the query was annotated by two or more people,
        so every annotator's spans (in every document) are that annotator's version (§3)."""
        return any(len(who) > 1 for who in self.units.values())


def build(
    tasks: Sequence[TaskIn],
    reading: Reading,
    existing: Sequence[Query],
    looked: str,
    progress: TaskFactory = no_task,
) -> Imported:
    """Merge records into queries; a known question without an id is skipped, said so;
    `progress` is told each record checked (the long part of a large file's read)."""
    groups: dict[str, _Group] = {}
    for task in each(progress, f"checking {len(tasks):,} records", tasks):
        if task.query_id is not None and not valid_id(task.query_id):
            raise task.where.error(f"invalid query id {task.query_id!r}")
        question = _question(task, looked)
        _check_annotator(task)
        group = groups.setdefault(_key(task, question), _Group(task, question))
        group.add(task, reading.spans(task))
    kept = [g.first.query_id for g in groups.values() if g.first.query_id]
    ids, known = FreshIds.after(existing, kept), {text_key(q.text): q.id for q in existing}
    queries, versions = [], []
    for g in groups.values():
        task = g.first
        if task.query_id is None and text_key(g.question) in known:
            reading.warnings.append(
                f"{task.where.file}, {task.where.key or f'line {task.where.line}'}: skipped "
                f"{g.question[:60]!r}, already query {known[text_key(g.question)]}"
            )
            continue
        q = _query(g, task.query_id or ids.next(), reading)
        queries.append(q)
        if g.double:
            versions += [(q.id, Version(who, False, _sorted(spans)))
                         for who, spans in sorted(g.by_who.items())]  # fmt: skip
    notes = [*reading.units.lines(tasks[0].where.file if tasks else ""), *reading.warnings]
    return Imported(tuple(queries), warnings=tuple(notes), fresh=frozenset(ids.handed),
                    versions=tuple(versions))  # fmt: skip


def _check_annotator(task: TaskIn) -> None:
    """Every record's annotator follows the names rule (§13), also one whose spans become
    a version only (a double-annotated query's own annotator is nobody, so the Query's
    check never sees them)."""
    if problem := annotator_problem(task.annotator):
        raise task.where.at(task.annotator_key).error(f"annotator name {problem}")


def _sorted(spans: list[Span]) -> tuple[Span, ...]:
    return tuple(sorted(dict.fromkeys(spans), key=lambda s: (s.doc, s.start, s.end)))


def _query(g: _Group, qid: str, reading: Reading) -> Query:
    spans = [s for group in g.by_who.values() for s in group]
    evidence = () if g.double else _sorted(spans)
    status = Status.LABELLED if spans else Status.DRAFT
    keys = {**QUESTION, "annotator": g.first.annotator_key}
    return g.first.where.query(
        keys, id=qid, text=g.question, slices=(reading.format,), status=status,
        annotator="" if g.double else g.first.annotator, evidence=evidence,
        facts=g.first.facts,
    )  # fmt: skip


def checked(query: Query, doc: str, text: str) -> list[Span]:
    """The query's spans in `doc`, each checked against the text before it is written."""
    spans = [s for s in query.evidence if s.doc == doc]
    for span in spans:
        span.check(text)
    return spans

"""Label Studio JSON export of text span annotations, `label-studio` (§4).

Label Studio has counted `value.start`/`end` in code points of the task text since 2022
(label-studio-frontend#308); older versions counted JavaScript UTF-16 units, which drift
after every emoji (label-studio#1008, #1347), and `value.text` may come with whitespace
collapsed (#3078). So offsets are the authority: code points first, UTF-16 units only
when that is what makes `value.text` match, and the text compared whitespace-insensitively.
Tasks that share `data.query_id` (or, lacking one, the question) are one query; a
question already in the store is skipped with a warning unless the task carries its id.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import Imported, Wrote
from labeler.core.formats._common import (
    FreshIds,
    RawView,
    Where,
    clean_text,
    json_text,
    load_json,
    raw_span,
    text_key,
    valid_id,
    write_atomic,
)
from labeler.core.names import check_name
from labeler.core.store.rows import Version
from labeler.core.typed import need, typed
from labeler.core.values import Query, Span, Status, parse_boundary, parse_status

SLICE = "label-studio"
"""The slice an imported query gets when the task names none."""
DOC_KEYS = ("doc", "document", "doc_id")
QUESTION_KEYS = ("question", "query")
META_KEYS = frozenset(
    {
        "query_id",
        "abstain",
        "boundary",
        "slices",
        "status",
        "notes",
        "annotators",
        *DOC_KEYS,
        *QUESTION_KEYS,
    }
)
"""`data` keys that never hold the task text."""


@dataclass
class _Group:
    """The tasks of one query, merged."""

    where: Where
    """The first task."""
    text: str
    """The question."""
    data: dict[str, Any]
    """The first task's `data`, for the labels it carries."""
    by_who: dict[str, list[Span]] = field(default_factory=dict)
    """{annotator: their spans, in every task (document) of the query}."""
    double: bool = False
    """Some task of the query carries annotations by two or more annotators: then every
    annotator's spans are that annotator's version (§3); else they are the evidence."""


def read(
    path: Path,
    corpus: Corpus,
    *,
    existing: Sequence[Query],
    labels: frozenset[str] | None = None,
) -> Imported:
    """Validate every task, then merge tasks into queries.

    Only span results whose labels meet `labels` count as evidence (default: every
    label; the labels seen are reported). A task with several annotations gives one
    version per annotator (`completed_by`), to be compared and adjudicated.
    """
    tasks = load_json(path)
    if not isinstance(tasks, list):
        raise LabelError("a Label Studio export is a JSON list of tasks", file=str(path))
    by_text: dict[str, list[str]] = {}
    for d in corpus:
        by_text.setdefault(d.text, []).append(d.id)
    groups: dict[str, _Group] = {}
    warnings: list[str] = []
    seen: set[str] = set()
    for ti, task in enumerate(tasks):
        where = Where(str(path), key=f"[{ti}]")
        data = need(task, "data", dict, where)
        annotations = _annotations(task, data.get("annotators"), where)
        results = [r for _, rs in annotations for r in rs]
        text = _question(data, results, where)
        ctx = _Context(corpus, by_text, where, warnings)
        qid = _query_id(data, where)
        key = f"id:{qid}" if qid else f"text:{text_key(text)}"
        group = groups.setdefault(key, _Group(where, text, data))
        if group.text != text:
            raise where.at("data.question").error(
                f"query_id {qid!r} has another question at {group.where.key}"
            )
        _same_labels(group, data, where)
        group.double |= len({who for who, _ in annotations}) > 1
        for who, rs in annotations:
            spans = [_span(data, r, ctx, rw) for r, rw in rs if _counts(r, rw, labels, seen)]
            group.by_who.setdefault(who, []).extend(spans)
    built = _build(list(groups.values()), existing, warnings)
    return replace(built, labels_seen=frozenset(seen))


def _counts(
    result: dict[str, Any], where: Where, labels: frozenset[str] | None, seen: set[str]
) -> bool:
    """Whether a result is a span whose labels count as evidence (noting the labels)."""
    if result.get("type") != "labels":
        return False
    value = need(result, "value", dict, where)
    names = typed(value.get("labels", []), list, where.at("value.labels"))
    found = {typed(n, str, where.at("value.labels")) for n in names}
    seen.update(found)
    return labels is None or bool(found & labels)


_LABEL_KEYS = ("abstain", "boundary", "slices", "status", "notes")
"""`data` keys that label the query: every task of one query must agree on them."""


def _same_labels(group: _Group, data: dict[str, Any], where: Where) -> None:
    if data is group.data:
        return
    for key in _LABEL_KEYS:
        if data.get(key, _ABSENT) != group.data.get(key, _ABSENT):
            raise where.at(f"data.{key}").error(
                f"the query's task at {group.where.key} gives {key} another value; "
                "tasks of one query must agree"
            )


_ABSENT = object()


def annotator_of(annotation: dict[str, Any], index: int, named: Sequence[Any] = ()) -> str:
    """Who made an annotation: the name spanlab's export listed for it in
    `data.annotators` (Label Studio makes the importing user every annotation's author),
    else `completed_by` as an email, a name or a user id."""
    by = annotation.get("completed_by")
    if index < len(named) and isinstance(named[index], str) and named[index].strip():
        by = named[index]
    if isinstance(by, dict):
        by = by.get("email") or by.get("username") or by.get("id")
    if isinstance(by, str) and by.strip():
        return by.strip()
    if isinstance(by, int) and not isinstance(by, bool):
        return f"user-{by}"
    return f"annotation-{index + 1}"


def _annotations(
    task: dict[str, Any], named: Any, where: Where
) -> list[tuple[str, list[tuple[dict[str, Any], Where]]]]:
    """(annotator, results) of every annotation not cancelled (older: `completions`)."""
    name = "annotations" if "annotations" in task else "completions"
    annotations = typed(task.get(name, []), list, where.at(name))
    out = []
    for i, a in enumerate(annotations):
        at = where.at(f"{name}[{i}]")
        if typed(a, dict, at).get("was_cancelled", False):
            continue
        results = need(a, "result", list, at)
        rs = [(typed(r, dict, at.at(f"result[{j}]")), at.at(f"result[{j}]"))
              for j, r in enumerate(results)]  # fmt: skip
        listed = named if isinstance(named, list) else []
        out.append((_who(a, i, listed, where.at(f"data.annotators[{i}]"), at), rs))
    return out


def _who(annotation: dict[str, Any], index: int, named: list[Any], listed: Where, at: Where) -> str:
    """`annotator_of`, which must be a name (§13): refused at the key it came from
    (`listed`: its place in `data.annotators`, `at`: the annotation's)."""
    who = annotator_of(annotation, index, named)
    from_list = index < len(named) and who == str(named[index]).strip()
    key = listed.key if from_list else f"{at.key}.completed_by"
    return check_name(who, "annotator name", file=at.file, key=key, error=LabelError)


def _question(
    data: dict[str, Any], results: list[tuple[dict[str, Any], Where]], where: Where
) -> str:
    for key in QUESTION_KEYS:
        if key in data:
            text = clean_text(typed(data[key], str, where.at(f"data.{key}")))
            if text:
                return text
    for r, rw in results:
        if r.get("type") == "textarea":
            lines = need(need(r, "value", dict, rw), "text", list, rw.at("value"))
            text = clean_text(" ".join(str(t) for t in lines))
            if text:
                return text
    raise where.at("data.question").error(
        "the task has no question (data.question, data.query or a textarea result)"
    )


def _query_id(data: dict[str, Any], where: Where) -> str | None:
    if "query_id" not in data:
        return None
    qid: str = typed(data["query_id"], str, where.at("data.query_id"))
    if not valid_id(qid):
        raise where.at("data.query_id").error(f"invalid query id {qid!r}")
    return qid


def _text_key(data: dict[str, Any], result: dict[str, Any]) -> str | None:
    """The `data` key holding the labelled text: the one the result's `to_name` names (the
    Text control's `value="$KEY"`, usually the same name; `document` too), `text`, or the
    only other string in `data` that is not a short document id."""
    to_name = result.get("to_name")
    if isinstance(to_name, str) and isinstance(data.get(to_name), str):
        return to_name
    if isinstance(data.get("text"), str):
        return "text"
    others = [k for k, v in data.items() if isinstance(v, str)
              and (k not in META_KEYS or (k in DOC_KEYS and not _is_id(v)))]  # fmt: skip
    return others[0] if len(others) == 1 else None


MAX_DOC_ID = 255
"""A `data` value longer than this, or holding a line break, is text, never a document id."""


def _is_id(value: str) -> bool:
    return len(value) <= MAX_DOC_ID and "\n" not in value


def _doc_id(data: dict[str, Any], key: str | None, where: Where) -> tuple[str, str] | None:
    """(data key, document id): the first of DOC_KEYS that is not the text key and holds
    a short one-line string."""
    for k in DOC_KEYS:
        value = data.get(k)
        if k == key or value is None:
            continue
        doc = typed(value, str, where.at(f"data.{k}"))
        if _is_id(doc):
            return k, doc
    return None


def _document(
    data: dict[str, Any],
    key: str | None,
    corpus: Corpus,
    by_text: dict[str, list[str]],
    where: Where,
) -> tuple[str, RawView]:
    found = _doc_id(data, key, where)
    doc_key, doc = found if found else (None, None)
    if doc is not None and doc not in corpus:
        raise where.at(f"data.{doc_key}").error(f"document {doc!r} is not in the corpus")
    if key is None:
        if doc is None:
            raise where.at("data.text").error("the task has labels but no text and no document")
        return doc, RawView(corpus.text(doc))
    view = RawView(data[key])
    if doc is not None:
        if view.canonical != corpus.text(doc):
            raise where.at(f"data.{key}").error(
                f"the task text differs from document {doc}", hint="run `spanlab review`"
            )
        return doc, view
    docs = by_text.get(view.canonical, [])
    if len(docs) != 1:
        problem = "matches no document" if not docs else f"matches {', '.join(docs)}"
        raise where.at(f"data.{key}").error(
            f"the task text {problem}; name the document in data.doc"
        )
    return docs[0], view


@dataclass(frozen=True)
class _Context:
    """What reading one task's spans needs besides the task."""

    corpus: Corpus
    """The corpus the tasks refer to."""
    by_text: dict[str, list[str]]
    """{canonical text: doc ids}, to find a task's document by its text."""
    task: Where
    """The task, for errors about the task as a whole."""
    warnings: list[str]
    """Where to note offsets read as UTF-16 units."""
    views: dict[str | None, tuple[str, RawView]] = field(default_factory=dict)
    """The task's document and view, by the `data` key holding its text."""


def _span(data: dict[str, Any], result: dict[str, Any], ctx: _Context, where: Where) -> Span:
    key = _text_key(data, result)
    if key not in ctx.views:
        ctx.views[key] = _document(data, key, ctx.corpus, ctx.by_text, ctx.task)
    doc, view = ctx.views[key]
    value = need(result, "value", dict, where)
    vw = where.at("value")
    start = need(value, "start", int, vw)
    end = need(value, "end", int, vw)
    quote = typed(value.get("text"), (str, type(None)), vw.at("text"))
    raw = data[key] if key is not None else ctx.corpus.text(doc)
    cp = _offsets(raw, start, end, quote, vw)
    if cp != (start, end):
        ctx.warnings.append(
            f"{vw.file}, {vw.key}: offsets {start}..{end} read as UTF-16 units "
            f"(an older Label Studio), i.e. code points {cp[0]}..{cp[1]}"
        )
    return raw_span(view, doc, cp[0], cp[1], None, vw)


def _offsets(raw: str, start: int, end: int, quote: str | None, where: Where) -> tuple[int, int]:
    """Code-point offsets of the span: as given, or read as UTF-16 units if only that
    makes the quote match. Offsets out of range are left for the range check."""
    if quote is None or _same(raw[start:end], quote):
        return start, end
    units = list(itertools.accumulate((2 if ord(c) > 0xFFFF else 1 for c in raw), initial=0))
    s, e = bisect.bisect_left(units, start), bisect.bisect_left(units, end)
    exact = s < len(units) and e < len(units) and units[s] == start and units[e] == end
    if units[-1] != len(raw) and exact and _same(raw[s:e], quote):
        return s, e
    if not 0 <= start < end <= len(raw):
        return start, end
    raise where.error(
        f"value.text {quote[:40]!r} does not match the task text at {start}..{end} "
        f"({raw[start:end][:40]!r})",
        offset=start,
    )


def _same(found: str, quote: str) -> bool:
    return found == quote or found.split() == quote.split()


def _build(groups: list[_Group], existing: Sequence[Query], warnings: list[str]) -> Imported:
    kept = [g.data["query_id"] for g in groups if "query_id" in g.data]
    ids = FreshIds.after(existing, kept)
    known = {text_key(q.text): q.id for q in existing}
    queries: list[Query] = []
    versions: list[tuple[str, Version]] = []
    for g in groups:
        qid = g.data.get("query_id")
        if qid is None and text_key(g.text) in known:
            warnings.append(
                f"{g.where.file}, task {g.where.key}: skipped {g.text[:60]!r}, already query "
                f"{known[text_key(g.text)]}"
            )
            continue
        q = _query(g, qid or ids.next())
        queries.append(q)
        if g.double:
            versions += [(q.id, Version(who, False, _ordered(spans)))
                         for who, spans in sorted(g.by_who.items())]  # fmt: skip
    return Imported(tuple(queries), warnings=tuple(warnings), fresh=frozenset(ids.handed),
                    versions=tuple(versions))  # fmt: skip


def _ordered(spans: list[Span]) -> tuple[Span, ...]:
    return tuple(sorted(dict.fromkeys(spans), key=lambda s: (s.doc, s.start, s.end)))


def _query(g: _Group, qid: str) -> Query:
    at = g.where.at("data")
    data = g.data
    every = [s for spans in g.by_who.values() for s in spans]
    spans = () if g.double else _ordered(every)
    abstain = typed(data.get("abstain", False), bool, at.at("abstain"))
    labelled = every or abstain
    single = [w for w in g.by_who if not w.startswith("annotation-")]
    slices = typed(data.get("slices", [SLICE]), list, at.at("slices"))
    default = Status.LABELLED if labelled else Status.DRAFT
    try:
        return Query(
            id=qid,
            text=g.text,
            abstain=abstain,
            boundary=parse_boundary(typed(data.get("boundary", "other"), str, at.at("boundary"))),
            slices=tuple(typed(s, str, at.at("slices")) for s in slices),
            notes=typed(data.get("notes", ""), str, at.at("notes")),
            status=parse_status(typed(data.get("status", default.value), str, at.at("status"))),
            evidence=spans,
            annotator=single[0] if len(single) == 1 and not g.double else "",
        )
    except LabelError as exc:
        key = _question_key(data) if exc.key == "text" else exc.key
        raise (at.at(key) if key else at).error(exc.message, offset=exc.offset) from None


def _question_key(data: dict[str, Any]) -> str:
    """The `data` key the question came from (`text` is the document's key), for an error."""
    given = (k for k in QUESTION_KEYS if isinstance(data.get(k), str) and data[k].strip())
    return next(given, "question")


@dataclass(frozen=True)
class Names:
    """The labelling config's names an export writes (Label Studio matches each result to
    its config by `from_name` / `to_name`, and reads the text from `data[text_key]`)."""

    from_name: str = "label"
    """The Labels control's `name`."""
    to_name: str = "text"
    """The Text object's `name`, the Labels' `toName`."""
    text_key: str = "text"
    """The `data` key the Text object's `value="$KEY"` reads."""
    label: str = "evidence"
    """The Label `value` every span gets."""

    def __post_init__(self) -> None:
        for option, value in (("--from-name", self.from_name), ("--to-name", self.to_name),
                              ("--text-key", self.text_key)):  # fmt: skip
            if not value or not value.isidentifier():
                raise LabelError(f"{option} {value[:40]!r} is not a name (letters, digits, _)",
                                 key=option)  # fmt: skip
        if self.text_key in META_KEYS:
            raise LabelError(f"--text-key {self.text_key!r} is a key spanlab writes itself "
                             f"({', '.join(sorted(META_KEYS))})", key="--text-key")  # fmt: skip


def write(
    queries: Sequence[Query],
    corpus: Corpus,
    out: Path,
    *,
    names: Names = Names(),
    waiting: Sequence[tuple[Query, Sequence[Version]]] = (),
) -> Wrote:
    """Every query, as tasks Label Studio's importer takes (label_studio 1.23.2,
    tasks/validation.py TaskValidator: `data[text_key]` present and a string in every task;
    annotations a list of objects with a `result` list; no `completed_by`, which must be a
    member's email or id there). A query with evidence: one task per document. An
    abstention or a query without evidence: one task with empty text (an abstention gets an
    empty annotation). A query waiting for adjudication: one task per document its versions
    touch, one annotation per version, the annotators named in `data.annotators`."""
    tasks: list[dict[str, Any]] = []
    for q in queries:
        tasks += _tasks(q, [Version(q.annotator, q.abstain, q.evidence)], corpus, names, False)
    for q, versions in waiting:
        tasks += _tasks(q, list(versions), corpus, names, True)
    write_atomic(out, json_text(tasks))
    abstain = sum(1 for q in queries if q.abstain and not q.evidence)
    empty = sum(1 for q in queries if not q.abstain and not q.evidence)
    kinds = (("abstentions (empty text)", abstain), ("without evidence (empty text)", empty),
             ("waiting for adjudication (one annotation per version)", len(waiting)))  # fmt: skip
    notes = tuple(f"{n} quer(y/ies) {what}" for what, n in kinds if n)
    return Wrote(len(queries) + len(waiting), len(tasks), warnings=notes)


def _tasks(
    q: Query, versions: list[Version], corpus: Corpus, names: Names, several: bool
) -> list[dict[str, Any]]:
    docs = list(dict.fromkeys(s.doc for v in versions for s in v.spans))
    data: dict[str, Any] = _data(q)
    if several:
        data["annotators"] = [v.annotator for v in versions]
    if not docs:
        annotations: list[dict[str, Any]] = [
            {"result": []} for v in versions if several or v.abstain
        ]
        return [{"data": {names.text_key: "", **data}, "annotations": annotations}]
    out = []
    for doc in docs:
        text = corpus.text(doc)
        annotations = [{"result": [_result(q, n, s, text, names) for n, s in enumerate(v.spans)
                                   if s.doc == doc]} for v in versions]  # fmt: skip
        task: dict[str, Any] = {names.text_key: text, "doc": doc, **data}
        out.append({"data": task, "annotations": annotations})
    return out


def _data(q: Query) -> dict[str, Any]:
    return {
        "question": q.text, "query_id": q.id, "abstain": q.abstain,
        "boundary": q.boundary.value, "slices": list(q.slices), "status": q.status.value,
        "notes": q.notes,
    }  # fmt: skip


def _result(q: Query, n: int, span: Span, text: str, names: Names) -> dict[str, Any]:
    span.check(text)
    value = {"start": span.start, "end": span.end, "text": span.quote, "labels": [names.label]}
    return {
        "id": f"{q.id}-{n}", "from_name": names.from_name, "to_name": names.to_name,
        "type": "labels", "value": value,
    }  # fmt: skip

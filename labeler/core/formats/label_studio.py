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

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import Imported
from labeler.core.formats._common import (
    FreshIds,
    Where,
    clean_text,
    facts_in,
    load_json,
    positive_group,
    text_key,
    valid_id,
)
from labeler.core.formats.label_studio_spans import Context, span_of
from labeler.core.formats.label_studio_write import QUESTION_KEYS, Names, write
from labeler.core.names import check_name
from labeler.core.progress import TaskFactory, each, no_task
from labeler.core.store.rows import Version
from labeler.core.typed import need, typed
from labeler.core.values import Query, Span, Status, parse_boundary, parse_status

__all__ = ["Names", "annotator_of", "read", "write"]

SLICE = "label-studio"
"""The slice an imported query gets when the task names none."""


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
    progress: TaskFactory = no_task,
) -> Imported:
    """Validate every task, then merge tasks into queries.

    Only span results whose labels meet `labels` count as evidence (default: every
    label; the labels seen are reported). A task with several annotations gives one
    version per annotator (`completed_by`), to be compared and adjudicated.
    """
    tasks = load_json(path, progress)
    if not isinstance(tasks, list):
        raise LabelError("a Label Studio export is a JSON list of tasks", file=str(path))
    by_text: dict[str, list[str]] = {}
    for d in corpus:
        by_text.setdefault(d.text, []).append(d.id)
    groups: dict[str, _Group] = {}
    warnings: list[str] = []
    seen: set[str] = set()
    for ti, task in enumerate(each(progress, f"checking {len(tasks):,} tasks", tasks)):
        where = Where(str(path), key=f"[{ti}]")
        data = need(task, "data", dict, where)
        annotations = _annotations(task, data.get("annotators"), where)
        results = [r for _, rs in annotations for r in rs]
        text = _question(data, results, where)
        ctx = Context(corpus, by_text, where, warnings)
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
            spans = [_grouped(span_of(data, r, ctx, rw), r, data, where)
                     for r, rw in rs if _counts(r, rw, labels, seen)]  # fmt: skip
            group.by_who.setdefault(who, []).extend(spans)
    built = _build(list(groups.values()), existing, warnings)
    return replace(built, labels_seen=frozenset(seen))


def _grouped(span: Span, result: dict[str, Any], data: dict[str, Any], where: Where) -> Span:
    """The span in the group `data.groups` gives its result id (§18), if any."""
    groups = typed(data.get("groups", {}), dict, where.at("data.groups"))
    rid = result.get("id")
    if not isinstance(rid, str) or rid not in groups:
        return span
    return replace(span, group=positive_group(groups[rid], where.at(f"data.groups.{rid}")))


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


_LABEL_KEYS = ("abstain", "boundary", "slices", "status", "notes", "facts")
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
    facts = facts_in(data.get("facts"), at.at("facts"))
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
            facts=facts,
        )
    except LabelError as exc:
        key = _question_key(data) if exc.key == "text" else exc.key
        raise (at.at(key) if key else at).error(exc.message, offset=exc.offset) from None


def _question_key(data: dict[str, Any]) -> str:
    """The `data` key the question came from (`text` is the document's key), for an error."""
    given = (k for k in QUESTION_KEYS if isinstance(data.get(k), str) and data[k].strip())
    return next(given, "question")

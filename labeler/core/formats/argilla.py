"""Argilla v2 records, `argilla` (§14): `dataset.records.to_list()` / `to_json()` (nested:
`fields`, `metadata`, `responses`, `suggestions`) and `to_list(flatten=True)` (fields and
metadata at the top, `NAME.responses`, `NAME.responses.users`, `NAME.responses.status`).

A span question's value is a list of `{label, start, end}`. Submitted responses are the
evidence, from every annotator; draft or discarded responses and model suggestions are
counted in a warning, not used. Argilla's UI counts UTF-16 code units (argilla#5729), so
that unit is tried first. Writing gives nested records `records.log` accepts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import Imported, Wrote
from labeler.core.formats import tasks as model
from labeler.core.formats._common import Where, json_text, left_out, load_json, write_atomic
from labeler.core.formats.offsets import UTF16, to_unit
from labeler.core.progress import TaskFactory, no_task
from labeler.core.typed import need, typed
from labeler.core.values import Query

QUESTION = "evidence"
"""The span question spanlab writes."""
LOOKED = "fields.question, fields.query or metadata.question"
_OWN = {"question", "query", "doc", "query_id"}


def _is_spans(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, dict) and "start" in v and "end" in v for v in value
    )


User = tuple[str, str]
"""A response's user id and the key, relative to the record, that holds it."""


def _answers(record: dict[str, Any], where: Where) -> Iterator[tuple[str, Any, User, str, Where]]:
    """(question, value, user, status, where) of every response, nested or flattened."""
    if isinstance(record.get("responses"), dict):
        for name, responses in record["responses"].items():
            for i, r in enumerate(typed(responses, list, where.at(f"responses.{name}"))):
                at = where.at(f"responses.{name}[{i}]")
                r = typed(r, dict, at)
                yield (
                    name,
                    r.get("value"),
                    (str(r.get("user_id", "")), f"responses.{name}[{i}].user_id"),
                    str(r.get("status") or "submitted"),
                    at,
                )
        return
    for key, values in record.items():
        if key.endswith(".responses") and isinstance(values, list):
            users = record.get(f"{key}.users") or [""] * len(values)
            status = record.get(f"{key}.status") or ["submitted"] * len(values)
            name = key.removesuffix(".responses")
            for i, value in enumerate(values):
                at = where.at(f"{key}[{i}]")
                user = (str(users[i]), f"{key}.users[{i}]")
                yield name, value, user, str(status[i] or "submitted"), at


def _claims_spans(question: str, value: Any) -> bool:
    """Whether a response means to be span evidence: an answer to spanlab's span question,
    or a list holding objects. One that is not a list of spans is refused, never read as
    a response without evidence."""
    if question == QUESTION:
        return value is not None
    return isinstance(value, list) and any(isinstance(v, dict) for v in value)


def _suggestions(record: dict[str, Any]) -> int:
    if isinstance(record.get("suggestions"), dict):
        return sum(_is_spans(s.get("value")) for s in record["suggestions"].values() if s)
    return sum(1 for k, v in record.items() if k.endswith(".suggestion") and _is_spans(v))


def _flat(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(fields, metadata) of a nested or flattened record."""
    if isinstance(record.get("fields"), dict):
        meta = record.get("metadata")
        return record["fields"], meta if isinstance(meta, dict) else {}
    return record, record


def _text(fields: dict[str, Any]) -> str | None:
    if isinstance(fields.get("text"), str):
        return str(fields["text"])
    others = [v for k, v in fields.items() if isinstance(v, str) and k not in _OWN
              and "." not in k and k not in ("id", "_server_id", "status")]  # fmt: skip
    return others[0] if len(others) == 1 else None


def task(record: dict[str, Any], where: Where, skipped: Counter[str]) -> list[model.TaskIn]:
    """One task per user who submitted spans (so two users give a query two versions);
    one task without spans when nobody did."""
    fields, meta = _flat(record)
    by_user: dict[str, list[model.SpanIn]] = {}
    keys: dict[str, str] = {}
    for name, value, (user, user_key), status, at in _answers(record, where):
        if not _is_spans(value):
            if _claims_spans(name, value):
                raise at.at("value").error(
                    f"the response to {name!r} holds {type(value).__name__} "
                    f"{str(value)[:40]!r}, not a list of spans ({{label, start, end}})"
                )
            continue
        if status != "submitted":
            skipped[f"{status} responses"] += 1
            continue
        spans = by_user.setdefault(user, [])
        keys.setdefault(user, user_key)
        for j, v in enumerate(value):
            sat = at.at(f"value[{j}]")
            spans.append(
                model.SpanIn(need(v, "start", int, sat), need(v, "end", int, sat), None, sat)
            )
    skipped["suggestions"] += _suggestions(record)
    question = fields.get("question") or fields.get("query") or meta.get("question")
    doc, qid, rid = meta.get("doc"), meta.get("query_id"), record.get("id")
    return [
        model.TaskIn(
            where, question if isinstance(question, str) else None, tuple(spans),
            text=_text(fields), doc=doc if isinstance(doc, str) else None,
            query_id=qid if isinstance(qid, str) else None, annotator=user,
            annotator_key=keys.get(user, "user_id"),
            task_id=f"record:{rid}" if rid is not None else f"record:{where.key}",
        )
        for user, spans in (by_user.items() or [("", [])])
    ]  # fmt: skip


def _record(raw: Any, where: Where, skipped: Counter[str]) -> list[model.TaskIn]:
    return task(typed(raw, dict, where), where, skipped)


def read(
    path: Path,
    corpus: Corpus,
    *,
    existing: Sequence[Query],
    skip_bad: bool = False,
    progress: TaskFactory = no_task,
) -> Imported:
    data = load_json(path, progress)
    if not isinstance(data, list):
        raise LabelError(
            "Argilla records are a JSON list (records.to_list / to_json)", file=str(path)
        )
    skipped: Counter[str] = Counter()
    model.some_records(len(data), str(path))
    skip = model.Skipping(skip_bad)
    tasks: list[model.TaskIn] = []
    for i, r in enumerate(data):
        where = Where(str(path), key=f"[{i}]")
        tasks += skip.read(partial(_record, r, where, skipped)) or []
    reading = model.Reading(corpus, (UTF16,), "argilla")
    for what, n in sorted(skipped.items()):
        if n:
            reading.warnings.append(f"{path}: {n} {what} were not used as evidence")
    return skip.told(model.build(tasks, reading, existing, LOOKED, progress))


def write(queries: Sequence[Query], corpus: Corpus, out: Path) -> Wrote:
    """One nested record per query and document; span offsets in UTF-16 code units."""
    records: list[dict[str, Any]] = []
    for q in queries:
        for doc in dict.fromkeys(s.doc for s in q.evidence):
            text = corpus.text(doc)
            value = [
                {"label": "evidence", "start": to_unit(text, s.start, UTF16),
                 "end": to_unit(text, s.end, UTF16)}
                for s in model.checked(q, doc, text)
            ]  # fmt: skip
            records.append({
                "id": f"{q.id}--{doc}", "fields": {"text": text, "question": q.text},
                "metadata": {"doc": doc, "query_id": q.id},
                "responses": {QUESTION: [{"value": value, "user_id": q.annotator or "spanlab",
                                          "status": "submitted"}]},
                "suggestions": {}, "vectors": {},
            })  # fmt: skip
    write_atomic(out, json_text(records))
    return Wrote(sum(1 for q in queries if q.evidence), len(records), left_out(queries))

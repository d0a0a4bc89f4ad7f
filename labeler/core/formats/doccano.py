"""doccano JSONL, `doccano` (§14): sequence labelling (`label: [[start, end, "TAG"]]`) and
relation extraction (`entities: [{start_offset, end_offset, label}]`), as doccano exports.

doccano's front end counts offsets in UTF-16 code units (doccano#2290) and some versions
in grapheme clusters, so UTF-16 is tried first and the unit of every span is reported.
Extra columns of an imported file come back at the top level of each exported line, so
`question`, `doc`, `query_id` and a query's `facts` (§23) travel there. Writing gives the
`label` shape, UTF-16.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.formats import Imported, Wrote
from labeler.core.formats import tasks as model
from labeler.core.formats._common import (
    Where,
    facts_in,
    left_out,
    overlapping,
    positive_group,
    write_atomic,
)
from labeler.core.formats._jsonl import dumps_lines, records
from labeler.core.formats.offsets import GRAPHEMES, UTF16, to_unit
from labeler.core.progress import TaskFactory, no_task
from labeler.core.typed import need, typed
from labeler.core.values import Query

ORDER = (UTF16, GRAPHEMES)
"""doccano's units, most likely first."""
LOOKED = "'question' or 'query', at the top level or in 'meta'"


def _meta(obj: dict[str, Any], key: str, where: Where) -> str | None:
    found = obj.get("meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    value = obj.get(key, meta.get(key))
    return None if value is None else str(typed(value, str, where.at(key)))


def _groups(obj: dict[str, Any], where: Where) -> dict[str, int]:
    """spanlab's `groups` ({"START-END": group}, §18), as written beside `label`."""
    found = typed(obj.get("groups", {}), dict, where.at("groups"))
    return {str(k): positive_group(v, where.at(f"groups.{k}")) for k, v in found.items()}


def _spans(obj: dict[str, Any], where: Where) -> list[model.SpanIn]:
    groups = _groups(obj, where)
    if "entities" in obj:
        out = []
        for i, e in enumerate(typed(obj["entities"], list, where.at("entities"))):
            at = where.at(f"entities[{i}]")
            start, end = need(e, "start_offset", int, at), need(e, "end_offset", int, at)
            out.append(model.SpanIn(start, end, None, at, groups.get(f"{start}-{end}")))
        return out
    out = []
    for i, item in enumerate(typed(obj.get("label", []), list, where.at("label"))):
        at = where.at(f"label[{i}]")
        if not (isinstance(item, list) and len(item) == 3):
            raise at.error("a label must be [start, end, tag]")
        start, end = typed(item[0], int, at), typed(item[1], int, at)
        out.append(model.SpanIn(start, end, None, at, groups.get(f"{start}-{end}")))
    return out


def task(obj: dict[str, Any], where: Where) -> model.TaskIn:
    question = _meta(obj, "question", where) or _meta(obj, "query", where)
    text = need(obj, "text", str, where)
    return model.TaskIn(
        where, question, tuple(_spans(obj, where)), text=text,
        doc=_meta(obj, "doc", where), query_id=_meta(obj, "query_id", where),
        facts=facts_in(obj.get("facts"), where.at("facts")),
    )  # fmt: skip


def read(
    path: Path,
    corpus: Corpus,
    *,
    existing: Sequence[Query],
    skip_bad: bool = False,
    progress: TaskFactory = no_task,
) -> Imported:
    skip = model.Skipping(skip_bad)
    found = [skip.read(partial(task, obj, where)) for where, obj in records(path, progress)]
    model.some_records(len(found), str(path))
    return skip.told(
        model.build(
            skip.kept(found), model.Reading(corpus, ORDER, "doccano"), existing, LOOKED, progress
        )
    )


def write(queries: Sequence[Query], corpus: Corpus, out: Path) -> Wrote:
    """One line per query and document, offsets in UTF-16 code units as doccano reads.
    doccano refuses an empty text (doccano 1.8.4, backend/data_import/pipeline/data.py
    TextData), so queries without evidence are left out and counted; it keeps an
    overlapping span only in a project that allows overlapping (labels/managers.py
    SpanManager.can_annotate), which is said."""
    rows: list[dict[str, Any]] = []
    for q in queries:
        for doc in dict.fromkeys(s.doc for s in q.evidence):
            text = corpus.text(doc)
            spans = model.checked(q, doc, text)
            labels = [[to_unit(text, s.start, UTF16), to_unit(text, s.end, UTF16), "evidence"]
                      for s in spans]  # fmt: skip
            row: dict[str, Any] = {"text": text, "label": labels, "question": q.text,
                                   "doc": doc, "query_id": q.id}  # fmt: skip
            groups = {f"{a}-{b}": s.group for (a, b, _), s in zip(labels, spans, strict=True)
                      if s.group is not None}  # fmt: skip
            places = {f"{a}-{b}": where for (a, b, _), s in zip(labels, spans, strict=True)
                      if (where := corpus.place(doc, s.start, s.end))}  # fmt: skip
            row = {**row, "groups": groups} if groups else row
            row = {**row, "facts": [list(f) for f in q.facts]} if q.facts else row
            rows.append({**row, "places": places} if places else row)  # §22: `page 2`
    write_atomic(out, dumps_lines(rows))
    n = overlapping(queries)
    keeps = "doccano keeps them only in a project with 'Allow overlapping spans' on"
    notes = (f"{n} span(s) overlap another span of their query: {keeps}",) if n else ()
    held = sum(1 for q in queries if q.evidence)
    return Wrote(held, len(rows), left_out(queries), notes)

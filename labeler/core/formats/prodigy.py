"""Prodigy JSONL, `prodigy` (§14): `text`, `spans` with `start`/`end` (code points, as
spaCy counts), `answer`; what `prodigy db-out` writes and `db-in` reads back.

Only accepted answers are evidence; rejected and ignored ones are counted in a warning,
never dropped unsaid. The question sits in `meta` (`meta.question`), where Prodigy keeps
whatever a task carried; `doc` and `query_id` travel there too. A span's `group` (§18)
is a key of the span, which Prodigy keeps as given.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.formats import Imported, Wrote
from labeler.core.formats import tasks as model
from labeler.core.formats._common import Where, group_in, left_out, write_atomic
from labeler.core.formats._jsonl import dumps_lines, records
from labeler.core.formats.offsets import CODE_POINTS
from labeler.core.progress import TaskFactory, no_task
from labeler.core.typed import need, typed
from labeler.core.values import Query, Span

LOOKED = "'meta.question', 'question' or 'meta.query'"


def _meta(obj: dict[str, Any], key: str, where: Where) -> str | None:
    found = obj.get("meta")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    value = meta.get(key, obj.get(key))
    return None if value is None else str(typed(value, str, where.at(f"meta.{key}")))


def task(obj: dict[str, Any], where: Where) -> model.TaskIn:
    spans = []
    for i, span in enumerate(typed(obj.get("spans", []), list, where.at("spans"))):
        at = where.at(f"spans[{i}]")
        start, end = need(span, "start", int, at), need(span, "end", int, at)
        quote = typed(span.get("text"), (str, type(None)), at.at("text"))
        spans.append(model.SpanIn(start, end, quote, at, group_in(span, at)))
    return model.TaskIn(
        where, _meta(obj, "question", where) or _meta(obj, "query", where), tuple(spans),
        text=need(obj, "text", str, where), doc=_meta(obj, "doc", where),
        query_id=_meta(obj, "query_id", where),
        annotator=str(obj.get("_annotator_id") or obj.get("_session_id") or ""),
        annotator_key="_annotator_id" if obj.get("_annotator_id") else "_session_id",
    )  # fmt: skip


def read(
    path: Path,
    corpus: Corpus,
    *,
    existing: Sequence[Query],
    skip_bad: bool = False,
    progress: TaskFactory = no_task,
) -> Imported:
    found: list[model.TaskIn | None] = []
    skipped, skip = Counter[str](), model.Skipping(skip_bad)
    for where, obj in records(path, progress):
        answer = typed(obj.get("answer", "accept"), str, where.at("answer"))
        if answer == "accept":
            found.append(skip.read(partial(task, obj, where)))
        else:
            skipped[answer] += 1
    model.some_records(len(found) + sum(skipped.values()), str(path))
    tasks = skip.kept(found)
    reading = model.Reading(corpus, (CODE_POINTS,), "prodigy")
    for answer, n in sorted(skipped.items()):
        reading.warnings.append(f"{path}: {n} task(s) answered {answer!r} were not imported")
    return skip.told(model.build(tasks, reading, existing, LOOKED, progress))


def _hash(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:4], "big")


def _span(s: Span) -> dict[str, Any]:
    span = {"start": s.start, "end": s.end, "label": "EVIDENCE", "text": s.quote}
    return span if s.group is None else {**span, "group": s.group}


def write(queries: Sequence[Query], corpus: Corpus, out: Path) -> Wrote:
    """One accepted task per query and document, as `prodigy db-in` reads."""
    rows: list[dict[str, Any]] = []
    for q in queries:
        for doc in dict.fromkeys(s.doc for s in q.evidence):
            text = corpus.text(doc)
            spans = [_span(s) for s in model.checked(q, doc, text)]
            meta = {"question": q.text, "doc": doc, "query_id": q.id}
            hashes = {"_input_hash": _hash(text), "_task_hash": _hash(text, q.id, doc)}
            rows.append({"text": text, "spans": spans, "meta": meta, "answer": "accept",
                         **hashes})  # fmt: skip
    write_atomic(out, dumps_lines(rows))
    return Wrote(sum(1 for q in queries if q.evidence), len(rows), left_out(queries))

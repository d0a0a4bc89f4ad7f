"""Label Studio's JSON-MIN and CSV exports, `label-studio-min` / `label-studio-csv` (§14).

label-studio-converter writes one flat row per annotation: the task's `data` keys, one key
per control (`from_name`) holding its results (`[{start, end, text, labels}]` for Labels;
a JSON string of that list in CSV), then `annotator`, `annotation_id`, `created_at`,
`updated_at`, `lead_time`. Every row is read (every annotation, with its annotator); each
`text` quote is checked, in code points first, then UTF-16 units (older Label Studio).
Label Studio cannot import these back with their annotations: export `label-studio`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.formats import Imported
from labeler.core.formats._common import Where, csv_rows, load_json
from labeler.core.formats.offsets import CODE_POINTS, UTF16
from labeler.core.formats.tasks import Reading, Skipping, SpanIn, TaskIn, build, some_records
from labeler.core.progress import TaskFactory, no_task
from labeler.core.typed import json_tree, need, typed
from labeler.core.values import Query

ROW_KEYS = ("annotator", "annotation_id", "created_at", "updated_at", "lead_time")
"""Keys label-studio-converter adds to every JSON-MIN / CSV row."""
LOOKED = "a 'question' or 'query' column"
_SKIP = {"id", "question", "query", "doc", "query_id", "agreement", "annotators", *ROW_KEYS}


CONTROLS = ("label", "labels", "evidence")
"""Column names of a Labels control (Label Studio's default, its plural, spanlab's own
word): such a column holds span results or nothing, never anything else."""


def _results(value: Any) -> list[Any] | None:
    """A control's results, if they are span results (a list of objects with start)."""
    if isinstance(value, str) and value.startswith("["):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or absurd: not span results
            return None
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, dict) and "start" in v for v in value)
    ):
        return value
    return None


def _claims_spans(name: str, value: Any) -> bool:
    """Whether a column means to hold span results: a control's name, or a list (or a
    CSV cell's JSON list) of objects. Such a column that cannot be read is refused, never
    read as no evidence."""
    if name.lower() in CONTROLS:
        return value not in (None, "", [])
    if isinstance(value, str) and value.lstrip().startswith("[{"):
        return True
    return isinstance(value, list) and any(isinstance(v, dict) for v in value)


def _control(name: str, value: Any, where: Where) -> list[Any]:
    """The span results a control column holds; refused (file, row, key) when unreadable."""
    at = where.at(name)
    if isinstance(value, str):
        try:
            value = json_tree(value, at)
        except json.JSONDecodeError as exc:
            raise at.error(f"the evidence cell is not valid JSON: {exc.msg}") from None
    results = _results(value)
    if results is None:
        got = type(value).__name__
        raise at.error(
            f"the evidence column holds {got} {str(value)[:40]!r}, not a list of span "
            "results ({start, end, text, labels})"
        )
    return results


def _spans(
    row: dict[str, Any], where: Where, labels: frozenset[str] | None, seen: set[str]
) -> list[SpanIn]:
    """The row's span results whose labels meet `labels` (every label when None), the
    labels of all of them noted in `seen`."""
    out = []
    for name, value in row.items():
        if name in _SKIP:
            continue
        results = _control(name, value, where) if _claims_spans(name, value) else None
        for i, r in enumerate(results or []):
            at = where.at(f"{name}[{i}]")
            found = typed(r.get("labels", []), list, at.at("labels"))
            names = {typed(n, str, at.at("labels")) for n in found}
            seen.update(names)
            if labels is not None and not names & labels:
                continue
            quote = typed(r.get("text"), (str, type(None)), at.at("text"))
            out.append(SpanIn(need(r, "start", int, at), need(r, "end", int, at), quote, at))
    return out


def _text(row: dict[str, Any]) -> str | None:
    if isinstance(row.get("text"), str):
        return str(row["text"])
    strings = [v for k, v in row.items() if isinstance(v, str) and k not in _SKIP
               and not _claims_spans(k, v) and _results(v) is None]  # fmt: skip
    return strings[0] if len(strings) == 1 else None


def annotator(value: Any) -> str:
    """Who made a row's annotation, named as the JSON reader names `completed_by`: a user
    id (an int in JSON-MIN, its digits in CSV) as `user-N`, an email as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"user-{value}"
    text = str(value or "").strip()
    return f"user-{text}" if text.isdigit() else text


def _named(rows: list[tuple[Where, dict[str, Any]]]) -> dict[int, str]:
    """{row index: annotator} from the `annotators` spanlab's export lists in each task
    (Label Studio makes the importing user every annotation's author): a task's rows in
    `annotation_id` order are its annotations in the order listed."""
    by_task: dict[str, list[tuple[int, int]]] = {}
    for n, (_, row) in enumerate(rows):
        aid = row.get("annotation_id")
        if row.get("annotators") and str(aid).isdigit():
            by_task.setdefault(str(row.get("id")), []).append((int(str(aid)), n))
    out: dict[int, str] = {}
    for ranked in by_task.values():
        for i, (_, n) in enumerate(sorted(ranked)):
            names = _results_list(rows[n][1]["annotators"])
            if i < len(names) and isinstance(names[i], str) and names[i].strip():
                out[n] = names[i].strip()
    return out


def _results_list(value: Any) -> list[Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return []
    return value if isinstance(value, list) else []


def task(
    row: dict[str, Any],
    where: Where,
    labels: frozenset[str] | None,
    seen: set[str],
    named: str | None = None,
) -> TaskIn:
    def opt(key: str) -> str | None:
        value = row.get(key)
        return value if isinstance(value, str) and value else None

    tid = row.get("id")
    return TaskIn(
        where, opt("question") or opt("query"), tuple(_spans(row, where, labels, seen)),
        text=_text(row), doc=opt("doc"), query_id=opt("query_id"),
        annotator=named or annotator(row.get("annotator")),
        annotator_key="annotators" if named else "annotator",
        task_id=None if tid in (None, "") else f"task:{tid}",
    )  # fmt: skip


def _rows(path: Path, progress: TaskFactory) -> list[tuple[Where, dict[str, Any]]]:
    if path.suffix.lower() == ".csv":
        return [
            (Where(str(path), line=n), dict(row))
            for n, row in csv_rows(path, (), progress=progress)
        ]
    data = load_json(path, progress)
    if not isinstance(data, list):
        raise LabelError("a Label Studio JSON-MIN export is a JSON list of rows", file=str(path))
    return [(Where(str(path), key=f"[{i}]"), typed(r, dict, Where(str(path), key=f"[{i}]")))
            for i, r in enumerate(data)]  # fmt: skip


def read(
    path: Path,
    corpus: Corpus,
    *,
    existing: Sequence[Query],
    labels: frozenset[str] | None = None,
    skip_bad: bool = False,
    progress: TaskFactory = no_task,
) -> Imported:
    """Every row; only span results whose labels meet `labels` count (default: every
    label; the labels seen are reported). Rows of one task by several annotators give
    each annotator a version of the query. With `skip_bad` a row that cannot be read is
    skipped and counted."""
    seen: set[str] = set()
    skip = Skipping(skip_bad)
    rows = _rows(path, progress)
    named = _named(rows)
    found = [skip.read(partial(task, row, where, labels, seen, named.get(n)))
             for n, (where, row) in enumerate(rows)]  # fmt: skip
    some_records(len(found), str(path))
    name = "label-studio-csv" if path.suffix.lower() == ".csv" else "label-studio-min"
    built = build(skip.kept(found), Reading(corpus, (CODE_POINTS, UTF16), name), existing, LOOKED,
                  progress)  # fmt: skip
    return skip.told(replace(built, labels_seen=frozenset(seen)))


def write(queries: Sequence[Query], corpus: Corpus, out: Path) -> None:
    raise LabelError(
        "Label Studio does not import annotations from JSON-MIN or CSV",
        file=str(out), hint="export --format label-studio (its JSON), which it reads back",
    )  # fmt: skip

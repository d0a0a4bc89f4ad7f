"""`--format` guessing: the suffix, then the shape of the first record.

Each rule states the keys it looks for, and a file that matches none is refused with the
whole list: a guess that falls back to a reader which ignores the spans would lose them
without a word (a Label Studio CSV read as bare questions did).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from labeler.core.errors import LabelError
from labeler.core.files.reading import open_regular, read_bounded
from labeler.core.formats._common import Where
from labeler.core.formats._jsonl import first_record
from labeler.core.typed import MAX_LABEL_FILE, MAX_LINE

SHAPES = (
    "spanlab: an object with 'format'",
    "squad: an object with a 'data' list",
    "label-studio: a list of tasks with 'data'",
    "label-studio-min: a list of rows with 'annotation_id' or span results",
    "argilla: a list of records with 'fields' and 'responses' (or 'NAME.responses')",
    "doccano (.jsonl): 'text' with 'label' [[start, end, tag]] or 'entities'",
    "prodigy (.jsonl): 'text' with 'spans' or 'answer'",
    "label-studio-csv (.csv): an 'annotation_id' column",
    "chroma-csv (.csv): a 'references' column; queries (.csv): a 'question' column",
    "qrels (.tsv/.qrels): 'query-id corpus-id score' or 'qid 0 docid rel' lines",
)
"""What the guesser looks for, as an unrecognised file is told."""


def _refuse(path: Path, found: str) -> LabelError:
    return LabelError(
        f"cannot tell the format of this file ({found})",
        file=str(path),
        hint="pass --format; known shapes: " + "; ".join(SHAPES),
    )


def _row(item: Any) -> str | None:
    if not isinstance(item, dict):
        return None
    if "data" in item:
        return "label-studio"
    if "fields" in item and ("responses" in item or "suggestions" in item):
        return "argilla"
    if any(k.endswith((".responses", ".suggestion")) for k in item):
        return "argilla"
    spans = any(isinstance(v, list) and v and isinstance(v[0], dict) and "start" in v[0]
                for v in item.values())  # fmt: skip
    if "annotation_id" in item or spans:
        return "label-studio-min"
    return None


def _json(path: Path) -> str:
    try:
        data = json.loads(read_bounded(path, MAX_LABEL_FILE, Where(str(path))).decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError, LabelError):  # ValueError: JSON, Unicode too
        return "spanlab"  # whose reader words a broken (or irregular, or huge) file best
    if isinstance(data, list):
        found = "label-studio" if not data else _row(data[0])
        if found is None:
            raise _refuse(path, f"a JSON list whose first item has keys {_keys(data[0])}")
        return found
    if isinstance(data, dict) and "format" not in data and isinstance(data.get("data"), list):
        return "squad"
    return "spanlab"


def _keys(item: Any) -> str:
    return ", ".join(sorted(map(str, item))[:8]) if isinstance(item, dict) else type(item).__name__


def _jsonl(path: Path) -> str:
    obj = first_record(path)
    if obj is None:
        raise _refuse(path, "no JSON object on its first line")
    if "spans" in obj or "answer" in obj or "_input_hash" in obj:
        return "prodigy"
    if "text" in obj and ("label" in obj or "entities" in obj):
        return "doccano"
    found = _row(obj)
    if found in ("argilla",):
        return found
    raise _refuse(path, f"first line has keys {_keys(obj)}")


def _csv(path: Path) -> str:
    try:
        with open_regular(path, MAX_LABEL_FILE, Where(str(path))) as handle:
            header = handle.readline(MAX_LINE).decode("utf-8-sig", "replace")
    except (OSError, LabelError):
        return "queries"  # whose reader refuses the file, saying why
    if "references" in header:
        return "chroma-csv"
    if "annotation_id" in header:
        return "label-studio-csv"
    return "queries"


def guess_format(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".txt":
        return "queries"
    if suffix == ".csv":
        return _csv(path)
    if suffix in (".tsv", ".qrels"):
        return "qrels"
    if suffix == ".jsonl":
        return _jsonl(path)
    return _json(path)

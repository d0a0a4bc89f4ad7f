"""JSON Lines files, read with the line of every record kept for its errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from labeler.core.errors import SpanlabError
from labeler.core.formats._common import Where, read_lines
from labeler.core.progress import TaskFactory, no_task
from labeler.core.typed import json_tree


def records(path: Path, progress: TaskFactory = no_task) -> Iterator[tuple[Where, dict[str, Any]]]:
    """(where, object) for each non-blank line; a line that is not an object is refused;
    `progress` is told the bytes parsed."""
    for number, line in read_lines(path, progress=progress):
        if not line.strip():
            continue
        where = Where(str(path), line=number)
        try:
            obj = json_tree(line, where)
        except json.JSONDecodeError as exc:
            raise where.error(f"not valid JSON: {exc.msg}") from None
        if not isinstance(obj, dict):
            raise where.error("each line must be a JSON object")
        yield where, obj


def first_record(path: Path) -> dict[str, Any] | None:
    """The first line's object, for guessing a format; None when there is none."""
    for number, line in read_lines(path):  # a file that cannot be read says so here
        if line.strip():
            try:
                obj = json_tree(line, Where(str(path), line=number))
            except (ValueError, SpanlabError):  # the reader itself words a bad line
                return None
            return obj if isinstance(obj, dict) else None
    return None


def dumps_lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

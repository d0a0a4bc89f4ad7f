"""JSON Lines files, read with the line of every record kept for its errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from labeler.core.formats._common import Where, read_text
from labeler.core.typed import json_tree


def records(path: Path) -> Iterator[tuple[Where, dict[str, Any]]]:
    """(where, object) for each non-blank line; a line that is not an object is refused."""
    for number, line in enumerate(read_text(path).splitlines(), 1):
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
    try:
        for line in read_text(path).splitlines():
            if line.strip():
                obj = json.loads(line)
                return obj if isinstance(obj, dict) else None
    except (json.JSONDecodeError, Exception):
        return None
    return None


def dumps_lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

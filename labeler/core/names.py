"""Names are names (§13): one rule for candidate, slice and annotator names, and the one
join that builds a path from a name and checks it stays inside its folder.

A name turns up in file names (TREC exports, run folders, collections), in XML and on a
terminal, so it may hold no path separator, no control character and no `..`, and it is
short; a path built from one is checked after joining, so no rule missed here escapes.
"""

from __future__ import annotations

import os
from pathlib import Path

from labeler.core.display import describe, unsafe_at
from labeler.core.errors import SpanlabError

MAX_NAME = 64
"""Longest name (code points)."""
PATTERN = (
    f"1–{MAX_NAME} printable characters, no '/' or '\\', not '.' or '..', "
    "no control character, no white space at either end"
)
"""The rule in words, for messages and help."""


def name_problem(name: str) -> str | None:
    """What breaks the name rule (`holds a path separator`), or None for a good name."""
    if not 1 <= len(name) <= MAX_NAME:
        return f"is {len(name):,} characters long (a name is 1–{MAX_NAME})"
    if (at := unsafe_at(name)) is not None:
        return f"holds {describe(name, at)}"
    if "/" in name or "\\" in name:
        return "holds a path separator ('/' or '\\')"
    if name in (".", ".."):
        return f"is {name!r}, which names a folder"
    if not name.isprintable():
        return "holds a character that is not printable"
    if name != name.strip():
        return "begins or ends with white space"
    return None


def check_name(
    name: str,
    what: str,
    *,
    file: str | None = None,
    line: int | None = None,
    key: str | None = None,
    hint: str | None = None,
    error: type[SpanlabError] = SpanlabError,
) -> str:
    """`name` when it follows the rule; else `error` saying so, located by file, line
    and key so the message names them."""
    problem = name_problem(name)
    if problem is None:
        return name
    short = name[:40] + ("…" if len(name) > 40 else "")
    message = f"{what} {short!r} {problem}; a name is {PATTERN}"
    raise error(message, file=file, line=line, key=key, hint=hint)


def inside(folder: Path, *parts: str) -> Path:
    """`folder / parts…`, refused unless the result lies inside `folder` (no `..`, no
    absolute part, no symlink in `folder` leading out): every path built from a name."""
    path = folder.joinpath(*parts)
    base = os.path.realpath(folder)
    real = os.path.realpath(path)
    if os.path.commonpath([base, real]) != base or real == base:
        raise SpanlabError(
            f"the name {os.path.join(*parts)!r} would make a path outside {folder}",
            file=str(folder),
        )
    return path

"""A Markdown document's front matter (§24): the YAML-ish `---` block at its top, read as
metadata fields for filters; the canonical text keeps it as it is (offsets count it).

Only the flat subset teams put there is read, without a YAML library (none is a
dependency, and a full YAML parser would run anchors and tags on outside text): `key:
value` lines, a value quoted or bare or an inline list `[a, b]`, or a key followed by `- item`
lines. Anything else in the block is passed over. Bounded: the block must close within
MAX_LINES lines, or the document has no front matter.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

MARKDOWN = (".md", ".markdown", ".mdx")
"""Documents whose front matter is read."""
MAX_LINES = 200
"""A block longer than this is not front matter."""
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*:(?:\s+(.*))?\Z")

Fields = dict[str, tuple[str, ...]]
"""Field name -> its values as text (one for a scalar, each item of a list)."""


def front_matter(doc: str, text: str) -> Fields:
    """The fields of `doc`'s front matter; none for a document that is not Markdown or
    does not open with `---`."""
    if PurePosixPath(doc).suffix.lower() not in MARKDOWN or not text.startswith("---\n"):
        return {}
    lines = text[4:].split("\n", MAX_LINES + 1)[:MAX_LINES]
    block = next((lines[:i] for i, line in enumerate(lines) if line.rstrip() in ("---", "...")),
                 None)  # fmt: skip
    return {} if block is None else _fields(block)


def _fields(lines: list[str]) -> Fields:
    out: dict[str, list[str]] = {}
    key = ""
    for line in lines:
        item = line.strip()
        if key and item.startswith("- "):
            out[key].append(_scalar(item[2:]))
            continue
        found = _KEY.match(line)
        key = ""
        if found is None or line[:1].isspace():
            continue
        name, value = found.group(1), (found.group(2) or "").strip()
        if value.startswith("[") and value.endswith("]"):
            out[name] = [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
        elif value and not value.startswith("#"):
            out[name] = [_scalar(value)]
        else:
            key, out[name] = name, []
    return {k: tuple(v) for k, v in out.items() if v}


def _scalar(raw: str) -> str:
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    value = value.split(" #", 1)[0].strip()
    return value.lower() if value.lower() in ("true", "false") else value

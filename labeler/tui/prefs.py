"""What the app remembers for a person between runs: the theme they last chose (from the
palette too) and, per label store and annotator, where they left off. One small JSON file
in their config folder, written aside and renamed so it always appears whole; an
unreadable file (or entry) is ignored, as if nothing had been saved.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from labeler.core.errors import UnsafeFile
from labeler.core.files import sharing


class Place(NamedTuple):
    """Where an annotator left off on the label screen."""

    query: str
    """The current query."""
    doc: str | None
    """The document on screen."""
    offset: int
    """The cursor's code-point offset in it."""


def prefs_path() -> Path:
    """`$XDG_CONFIG_HOME/spanlab/app.json` (default `~/.config/spanlab/app.json`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "spanlab" / "app.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, data: dict[str, Any]) -> None:
    """Write `data` aside and rename it over `path`; a failed write leaves the file as it was."""
    with contextlib.suppress(OSError, UnsafeFile):  # a link there (dotfiles) is left as is
        sharing.make_folder(path.parent)
        sharing.write_text(path, json.dumps(data))


def saved_theme(path: Path) -> str | None:
    """The theme saved in `path`, or None when there is none or the file is unreadable."""
    theme = _read(path).get("theme")
    return theme if isinstance(theme, str) else None


def save_theme(path: Path, theme: str) -> None:
    """Remember `theme` (beside whatever else the file keeps)."""
    _write(path, {**_read(path), "theme": theme})


def place_key(store_path: str, annotator: str) -> str | None:
    """Whose place, in which store; None for an in-memory store (nothing to come back to)."""
    if store_path == ":memory:":
        return None
    return f"{Path(store_path).resolve()}\n{annotator}"


def saved_place(path: Path, key: str) -> Place | None:
    """Where `key`'s annotator left off, or None (nothing saved, or not readable)."""
    places = _read(path).get("places")
    entry = places.get(key) if isinstance(places, dict) else None
    if not isinstance(entry, dict):
        return None
    query, doc, offset = entry.get("query"), entry.get("doc"), entry.get("offset")
    if not isinstance(query, str) or not isinstance(offset, int) or isinstance(offset, bool):
        return None
    return Place(query, doc if isinstance(doc, str) else None, max(offset, 0))


def save_place(path: Path, key: str, place: Place) -> None:
    """Remember `place` for `key`, keeping the other stores' and annotators' places."""
    data = _read(path)
    found = data.get("places")
    places: dict[str, Any] = found if isinstance(found, dict) else {}
    _write(path, {**data, "places": {**places, key: place._asdict()}})

"""What the app remembers for a person between runs: the theme they last chose (from the
palette too). One small JSON file in their config folder, written aside and renamed so it
always appears whole; an unreadable file is ignored, as if nothing had been saved.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def prefs_path() -> Path:
    """`$XDG_CONFIG_HOME/spanlab/app.json` (default `~/.config/spanlab/app.json`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "spanlab" / "app.json"


def saved_theme(path: Path) -> str | None:
    """The theme saved in `path`, or None when there is none or the file is unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    theme = data.get("theme") if isinstance(data, dict) else None
    return theme if isinstance(theme, str) else None


def save_theme(path: Path, theme: str) -> None:
    """Remember `theme`; a file that cannot be written is left as it was."""
    aside = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        aside.write_text(json.dumps({"theme": theme}), encoding="utf-8")
        aside.replace(path)
    except OSError:
        aside.unlink(missing_ok=True)

"""Where the bundled `data/` and `themes/` folders are, installed or in a checkout.

A wheel carries them under `labeler/_bundled/`; an editable install or a checkout has
them at the repository root, next to the `labeler` package.
"""

from __future__ import annotations

from pathlib import Path

import labeler


def bundled(rel: str) -> Path:
    """Path of `data/...` or `themes/...` shipped with spanlab."""
    package = Path(labeler.__file__).resolve().parent
    for base in (package / "_bundled", package.parent):
        candidate = base / rel
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"bundled resource {rel!r} is missing from this installation")

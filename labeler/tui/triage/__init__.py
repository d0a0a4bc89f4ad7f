"""The regression triage screens (design §9, §11): runs, gained/lost queries, boundaries.

The app opens `TriageScreen` as its `triage` screen; `e` posts `LabelRequested`, which
the app answers by switching to the label screen on that query. The screens load on
first use (they bring the metrics), so the app starts without them (design §12).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from labeler.tui.triage.messages import LabelRequested

if TYPE_CHECKING:
    from labeler.tui.triage.query_screen import QueryScreen
    from labeler.tui.triage.screen import TriageScreen

__all__ = ["LabelRequested", "QueryScreen", "TriageScreen"]

_LAZY = {"QueryScreen": "query_screen", "TriageScreen": "screen"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

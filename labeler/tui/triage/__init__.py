"""The regression triage screens (SPEC §9, §11): runs, gained/lost queries, boundaries.

The app opens `TriageScreen` as its `triage` screen; `e` posts `LabelRequested`, which
the app answers by switching to the label screen on that query.
"""

from labeler.tui.triage.messages import LabelRequested
from labeler.tui.triage.query_screen import QueryScreen
from labeler.tui.triage.screen import TriageScreen

__all__ = ["LabelRequested", "QueryScreen", "TriageScreen"]

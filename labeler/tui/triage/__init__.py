"""The regression triage screens (SPEC §9, §11): runs, gained/lost queries, boundaries.

Only the screens and their message are exported here, so the labelling app can push
`TriageScreen` without importing the triage app (which imports the label screen):
`labeler.tui.triage.app` and `.launch` are imported by name.
"""

from labeler.tui.triage.messages import LabelRequested
from labeler.tui.triage.query_screen import QueryScreen
from labeler.tui.triage.screen import TriageScreen

__all__ = ["LabelRequested", "QueryScreen", "TriageScreen"]

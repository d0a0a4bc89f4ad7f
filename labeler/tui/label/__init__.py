"""The label feature (SPEC §3): the label screen, its Textual-free state, and the editor.

Others import from here: the app and triage push `LabelScreen(editor)`, handing it an
`Editor`. The rest (`state`, `filters`, `undo`, `corpus_search`, the form, the search and
document picker screens, the query list and panels) is used only by the label screen.
"""

from labeler.tui.label.editor import Editor
from labeler.tui.label.screen import LabelScreen

__all__ = ["Editor", "LabelScreen"]

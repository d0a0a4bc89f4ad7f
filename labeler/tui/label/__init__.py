"""The label feature (design §3): the label screen, its Textual-free state, and the editor.

Others import from here: the app and triage push `LabelScreen(editor)`, handing it an
`Editor`; the app loads `LABEL_STYLESHEET` up front, as the label screen is its default.
The rest (the screen's sibling modules, `state`, `filters`, `undo`, `corpus_search`, the
form, the search and document picker screens, the list and panels) is the screen's alone.
"""

from labeler.tui.label.editor import Editor
from labeler.tui.label.screen import LABEL_STYLESHEET, LabelScreen

__all__ = ["LABEL_STYLESHEET", "Editor", "LabelScreen"]

"""The document view and the pure pieces it is built from, each testable without a screen.

`widget` is the Textual widget; `layout` wraps text into rows, leaving the lines of the
code and table `blocks` whole, `pan` shifts those sideways, `motion` moves the cursor,
`textnav` finds word and sentence edges, `paint` cuts a row into styled segments, and
`marks` decides which spans to draw in which role. Screens import from here.
"""

from labeler.tui.widgets.document_view.marks import (
    Mark,
    Role,
    alternatives_in,
    annotators_of,
    marks_for,
)
from labeler.tui.widgets.document_view.widget import DocumentView

__all__ = ["DocumentView", "Mark", "Role", "alternatives_in", "annotators_of", "marks_for"]

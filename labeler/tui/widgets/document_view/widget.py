"""The document view: canonical text on Textual's line API, with a cursor and a selection.

The widget binds the keys and styles; the text, layout and painting are `textview`'s, the
keys' work `span_keys`' and `mouse`'s. The view never touches the store: adding, adjusting
and dropping spans are messages (`messages`) the screen acts on.
"""

from __future__ import annotations

from typing import ClassVar, TypeAlias

from textual.binding import Binding, BindingType

from labeler.tui.widgets.document_view import messages
from labeler.tui.widgets.document_view.mouse import MouseInput
from labeler.tui.widgets.document_view.span_keys import SpanKeys


def _move(key: str, where: str, *, extend: bool = False) -> Binding:
    return Binding(key, f"move('{where}', {extend})", where.replace("_", " "), show=False)


class DocumentView(SpanKeys, MouseInput, can_focus=True):
    """Soft-wrapped text with highlighted spans, a cursor and a keyboard or mouse selection."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "document-view--span-current",
        "document-view--span-other",
        "document-view--span-alternative",
        "document-view--annotator-a",
        "document-view--annotator-b",
        "document-view--selection",
        "document-view--cursor",
        "document-view--match",
        "document-view--edge",
    }
    DEFAULT_CSS = """
    DocumentView {
        background: $surface;
        color: $foreground;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
        overflow-y: scroll;
        & > .document-view--span-current { background: $span-current; text-style: bold; }
        & > .document-view--span-other { background: $span-other; text-style: underline; }
        & > .document-view--span-alternative {  /* either will do (§18): not by shade alone */
            background: $span-alternative;
            text-style: bold uu;
        }
        & > .document-view--annotator-a { background: $annotator-a; text-style: bold; }
        & > .document-view--annotator-b { color: $annotator-b; text-style: bold underline; }
        & > .document-view--selection { background: $selection; }
        & > .document-view--match { background: $match; }
        & > .document-view--cursor { text-style: reverse; }
        & > .document-view--edge { color: $text-muted; text-style: bold; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *(_move(k, k) for k in ("left", "right", "up", "down", "home", "end")),
        *(_move(k, k) for k in ("pageup", "pagedown")),
        *(_move(f"shift+{k}", k, extend=True) for k in ("left", "right", "up", "down")),
        *(_move(f"shift+{k}", k, extend=True) for k in ("home", "end", "pageup", "pagedown")),
        _move("ctrl+left", "word_left"),
        _move("ctrl+right", "word_right"),
        _move("ctrl+shift+left", "word_left", extend=True),
        _move("ctrl+shift+right", "word_right", extend=True),
        _move("ctrl+home", "top"),
        _move("ctrl+end", "bottom"),
        Binding("a", "add", "Add span"),
        Binding("w", "snap('word')", "Snap to whole words, or double-click", show=False),
        Binding("s", "snap('sentence')", "Snap to sentences, or triple-click", show=False),
        Binding("escape", "clear", "Clear selection and find", show=False),
        Binding("n", "next_span(True)", "Next span of this query (all documents)", show=False),
        Binding("N", "next_span(False)", "Previous span", show=False),
        Binding("[", "nudge('start', -1)", "Move span start left a character", show=False),
        Binding("]", "nudge('start', 1)", "Move span start right a character", show=False),
        Binding("{", "nudge('end', -1)", "Move span end left a character", show=False),
        Binding("}", "nudge('end', 1)", "Move span end right a character", show=False),
        Binding("r", "redraw", "Extend the span out to the selection", show=False),
        Binding("x,delete", "drop", "Delete span", show=False),
        Binding("less_than_sign", "pan(-1)", "Shift code or table left", show=False),
        Binding("greater_than_sign", "pan(1)", "Shift code or table right", show=False),
    ]

    CursorMoved: TypeAlias = messages.CursorMoved
    SelectionMade: TypeAlias = messages.SelectionMade
    EdgesChanged: TypeAlias = messages.EdgesChanged
    SpanDropped: TypeAlias = messages.SpanDropped
    SpansExhausted: TypeAlias = messages.SpansExhausted

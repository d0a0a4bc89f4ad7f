"""The document's keys pressed while the focus is elsewhere on the label screen (the query
list after a restart, a filter or a click): each acts in the document or says where it acts,
so no key the help lists is ever silent.

The screen's hidden bindings are generated from `DocumentView.BINDINGS`, so a new document
key answers everywhere without an entry here; `WHERE` names the keys that work on the
document's cursor or selection, which only say where they act (an edit the person cannot
see aimed is worse than a word).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.binding import Binding, BindingType

TAB = "tab moves there"
"""How to get into the document from the list: the end of every `WHERE` line."""
WHERE: dict[str, str] = {
    "add": f"Select in the document first: {TAB} (then shift+arrows, w, s or drag).",
    "snap": f"w and s snap the document's selection: {TAB}.",
    "nudge": f"[ ] {{ }} move the edges of the span under the document's cursor: {TAB}.",
    "redraw": f"r extends the span under the document's selection out to it: {TAB}.",
    "drop": f"x deletes the span under the document's cursor: {TAB}.",
}
"""Document actions that say where they act when the document does not have the focus;
every other document key moves the focus into the document and acts there."""
WHERE_TITLE = "In the document"
"""The title of those notes."""


def action_name(action: str) -> str:
    """`nudge` for `nudge('start', -1)`."""
    return action.partition("(")[0]


def elsewhere_bindings(
    view: Sequence[BindingType], taken: Iterable[BindingType]
) -> list[BindingType]:
    """One hidden binding (no description: the help lists the document's own) per document
    key the screen does not bind itself, running `elsewhere("<the view's action>")`."""
    own = {k.strip() for b in taken if isinstance(b, Binding) for k in b.key.split(",")}
    found: list[BindingType] = []
    for b in view:
        if not isinstance(b, Binding):
            continue
        keys = [k.strip() for k in b.key.split(",") if k.strip() not in own]
        if keys:
            found.append(Binding(",".join(keys), f'elsewhere("{b.action}")', "", show=False))
    return found


def focus_note(focused: str) -> str:
    """The help's first line: which part of the label screen has the focus, and what that
    means for the keys below (`focused`: the widget's id)."""
    if focused == "document":
        return "Focus: the document. Every key below acts here."
    if focused == "queries":
        return (  # plain arrows are the list's own: only shift and ctrl ones reach the document
            "Focus: the query list: arrows, home/end, pgup/pgdn move in it. n, N, shift+ and "
            f"ctrl+arrows act in the document; a, x, [ ] {{ }}, r, w, s need it ({TAB})."
        )
    if focused == "filter":
        return "Focus: the filter. Letters type here; enter or tab leaves it."
    return f"Focus: {focused or 'nothing'}."

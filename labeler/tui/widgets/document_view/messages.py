"""What the document view tells the screen: it never edits, it asks.

Each message carries the view it came from (its `control`, so `@on(..., "#id")` works)
and is handled as `on_document_view_…`, as when the classes were nested in the view.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.widget import Widget


@dataclass
class ViewMessage(Message):
    """A message from a document view."""

    view: Widget
    """The view that sent it (a `TextView`; typed as its base so this module stands below
    the view that imports it)."""

    @property
    def control(self) -> Widget:
        return self.view


@dataclass
class CursorMoved(ViewMessage, namespace="document_view"):
    """The cursor or the selection changed."""

    offset: int
    selection: tuple[int, int] | None


@dataclass
class SelectionMade(ViewMessage, namespace="document_view"):
    """The annotator asked to add the selection as evidence."""

    doc: str
    start: int
    end: int
    generation: int | None = None
    """The view's `generation` when `a` was pressed (None: a caller that did not say)."""


@dataclass
class EdgesChanged(ViewMessage, namespace="document_view"):
    """The annotator moved a span's edges; the screen commits them."""

    span_id: int
    start: int
    end: int
    nudge: bool = False
    """One edge moved by one step (`[ ] { }`): a run of them undoes as one step."""


@dataclass
class SpanDropped(ViewMessage, namespace="document_view"):
    """The annotator asked to delete a span."""

    span_id: int


@dataclass
class SpansExhausted(ViewMessage, namespace="document_view"):
    """Next/previous span found none in this document: the screen may change document."""

    forward: bool

"""The last few documents' layouts, so a document opened again is not wrapped again.

Wrapping a 2 MB document takes a few hundred milliseconds; going back to it should not.
A layout is kept by document id, text hash and width, and only handed back for the very
same text, so an edited document (or a resized view) is wrapped afresh.
"""

from __future__ import annotations

from collections import OrderedDict

from labeler.tui.widgets.document_view.blocks import Block, find_blocks
from labeler.tui.widgets.document_view.layout import Layout

KEPT = 4
"""How many layouts a view keeps (the least recently used goes first)."""

Key = tuple[str, int, int]
"""(document id, hash of its text, width)."""


class KeptLayouts:
    """A small LRU of layouts and each text's code and table blocks."""

    def __init__(self, size: int = KEPT) -> None:
        self.size = size
        """Most layouts kept."""
        self._layouts: OrderedDict[Key, Layout] = OrderedDict()
        self._blocks: OrderedDict[tuple[str, int], tuple[str, list[Block]]] = OrderedDict()

    def blocks(self, doc_id: str, text: str) -> list[Block]:
        """The text's unwrapped blocks, found once per text."""
        key = (doc_id, hash(text))
        found = self._blocks.get(key)
        if found is None or found[0] != text:
            found = (text, find_blocks(text))
        self._blocks[key] = found
        self._blocks.move_to_end(key)
        _trim(self._blocks, self.size)
        return found[1]

    def layout(self, doc_id: str, text: str, width: int) -> Layout:
        """The text wrapped at `width`: the kept one when the text is the same."""
        key = (doc_id, hash(text), width)
        found = self._layouts.get(key)
        if found is None or found.text != text:
            found = Layout(text, width, self.blocks(doc_id, text))
        self._layouts[key] = found
        self._layouts.move_to_end(key)
        _trim(self._layouts, self.size)
        return found


def _trim(kept: OrderedDict[Key, Layout] | OrderedDict[tuple[str, int], tuple[str, list[Block]]],
          size: int) -> None:  # fmt: skip
    while len(kept) > size:
        kept.popitem(last=False)

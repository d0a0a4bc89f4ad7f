"""Where each annotator left off in each label store, kept in their prefs file so that
`spanlab label` reopens on that query, document and offset. Textual-free: the screen
hands it the place; a query deleted since is simply not resumed.
"""

from __future__ import annotations

from pathlib import Path

from labeler.core.errors import SpanlabError
from labeler.core.store import Store
from labeler.tui.prefs import Place, place_key, save_place, saved_place


class Resume:
    """One annotator's place in one store (a no-op without a prefs file or a file store)."""

    def __init__(self, prefs: Path | None, store_path: str, annotator: str) -> None:
        self.prefs = prefs
        """The prefs file (None: remember nothing)."""
        self.key = place_key(store_path, annotator)
        """Whose place in which store."""
        self._last: Place | None = None

    def place(self, store: Store) -> Place | None:
        """The saved place, when its query still exists."""
        if self.prefs is None or self.key is None:
            return None
        found = saved_place(self.prefs, self.key)
        if found is None:
            return None
        try:
            store.query(found.query)
        except SpanlabError:
            return None
        return found

    def keep(self, query: str, doc: str | None, offset: int) -> None:
        """Save the place (only when it changed)."""
        place = Place(query, doc, offset)
        if self.prefs is None or self.key is None or place == self._last:
            return
        save_place(self.prefs, self.key, place)
        self._last = place

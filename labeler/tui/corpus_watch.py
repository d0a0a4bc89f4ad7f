"""The corpus folder, watched while the app runs (§8, §11): an edited document must not
leave the label screen drawing old text, nor the review screen saying nothing waits.

A thread compares the folder's signature on a timer; switching to review or label
compares it at once. When it differs the corpus is read again on the app's thread, the
store is synced, and every screen hears `CorpusChanged`.
"""

from __future__ import annotations

from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.source import CorpusSource, Signature
from labeler.core.errors import SpanlabError


class CorpusWatch:
    """The last signature seen; `changed` looks again, `read` takes the new corpus."""

    def __init__(self, source: CorpusSource) -> None:
        self.source = source
        self._seen: Signature = source.signature()
        self._new: Signature | None = None
        self._failed: Signature | None = None
        """A signature whose read failed: said once, not on every tick."""

    def changed(self) -> bool:
        """Whether the folder differs from the corpus last read (a walk and a stat per file)."""
        now = self.source.signature()
        if now == self._seen or now == self._failed:
            return False
        self._new = now
        return True

    def read(self) -> Corpus:
        """The corpus as it is now; a SpanlabError (a half-written file, say) is raised once
        for this state of the folder, and the old corpus stays in use."""
        try:
            corpus = self.source.read()
        except SpanlabError:
            self._failed = self._new
            raise
        if self._new is not None:
            self._seen = self._new
        return corpus

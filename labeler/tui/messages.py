"""App-wide messages (widget messages live in the widget that posts them)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from labeler.core.corpus.folder import Corpus


@dataclass
class LabelsChanged(Message):
    """Another connection committed to the store: screens showing labels reload them."""

    data_version: int
    """SQLite's `PRAGMA data_version` after the change."""


@dataclass
class AgreementRequested(Message):
    """The person wants the agreement screen (`R` on the label screen), on this query."""

    query: str | None
    """The query to show there, if it waits for adjudication."""


@dataclass
class CorpusChanged(Message):
    """The corpus folder changed under the running app and was read again."""

    corpus: Corpus
    """The corpus as it is now."""
    documents: tuple[str, ...]
    """Ids of the documents changed, added or removed."""
    waiting: int
    """Spans that now wait for review (0: every span is still in place)."""

"""Run-time settings of the app that tests and benchmarks change (blinking, polling, the
suggestions' embedder).

Snapshot tests need a cursor that does not blink, a short poll and a frozen clock; each is
a setting handed to the app, not a patch of Textual internals. Widgets read them through
`settings_of(app)` so none of them imports the app module.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from textual import events
from textual.widgets import Input

if TYPE_CHECKING:
    from labeler.core.project.cache_place import CacheWhere


@dataclass(frozen=True)
class Settings:
    cursor_blink: bool = True
    """Whether text inputs blink their cursor (off for snapshots)."""
    poll_interval: float = 1.0
    """Seconds between checks for other annotators' changes."""
    corpus_interval: float = 2.0
    """Seconds between looks at the corpus folder (when the app watches it)."""
    suggest_embedding: str | None = "minilm"
    """The embedding suggested evidence fuses with BM25 (None: lexical only)."""
    embedding_cache: CacheWhere = None
    """The project's embedding cache, where sentence vectors are kept (None: in memory; a
    team's: one's own file and the leads', §21)."""
    candidates: Path | None = None
    """The project's candidates file, whose cuts rank transitions to label (None: none)."""
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    """What the app takes as now: the UTC day its "N today" counts from (tests freeze it,
    so no picture changes at midnight)."""


@runtime_checkable
class HasSettings(Protocol):
    settings: Settings


def settings_of(app: object) -> Settings:
    return app.settings if isinstance(app, HasSettings) else Settings()


class Field(Input):
    """A one-line input, compact, blinking only when the app's settings say so."""

    def __init__(
        self,
        value: str = "",
        *,
        placeholder: str = "",
        restrict: str | None = None,
        select_on_focus: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(
            value,
            placeholder=placeholder,
            restrict=restrict,
            select_on_focus=select_on_focus,
            compact=True,
            id=id,
        )

    def on_mount(self) -> None:
        self.cursor_blink = settings_of(self.app).cursor_blink

    def on_key(self, event: events.Key) -> None:
        """Keep format characters (ZWJ, ZWNJ, …): Input drops them as unprintable, which
        breaks a ZWJ emoji sequence into separate emoji."""
        char = event.character
        if char is not None and len(char) == 1 and unicodedata.category(char) == "Cf":
            event.stop()
            event.prevent_default()
            if self.selection.is_empty:
                self.insert_text_at_cursor(char)
            else:
                self.replace(char, *self.selection)

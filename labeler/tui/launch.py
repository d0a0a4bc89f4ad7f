"""How the CLI starts the labelling app: it hands over the store and corpus it opened."""

from __future__ import annotations

from labeler.core.corpus import Corpus
from labeler.core.store import Store
from labeler.tui.app import SpanlabApp


def run_label_app(store: Store, corpus: Corpus, *, annotator: str, theme: str | None) -> None:
    """Run the labelling app until the annotator quits; an unknown theme raises ConfigError."""
    SpanlabApp(store, corpus, annotator=annotator, theme=theme).run()

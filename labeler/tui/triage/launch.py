"""How the CLI starts triage: it hands over the runs folder, the corpus and, when the
project has a label store, a way to open the label screen on a query."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from evaluator.runs.index import find_run
from labeler.core.corpus import Corpus
from labeler.core.store import Store
from labeler.tui.label import Editor, LabelScreen
from labeler.tui.triage.app import LabelOpener, TriageApp


def label_opener(store: Store, corpus: Corpus, *, annotator: str) -> LabelOpener:
    """Open the label screen with a query selected; one editor, so undo spans the visits."""
    editor = Editor(store, corpus, annotator)

    def open_label(query: str) -> LabelScreen:
        screen = LabelScreen(editor)
        screen.current = query
        return screen

    return open_label


def run_triage_app(runs_dir: Path, corpus: Corpus, *, run_id: str | None,
                   theme: str | None, open_label: LabelOpener | None = None,
                   texts: Mapping[str, str] | None = None) -> None:  # fmt: skip
    """Run triage until the reviewer quits; no runs or an unknown run id raise StoreError."""
    entry = find_run(runs_dir, run_id)
    TriageApp(runs_dir, corpus, run_id=entry.id, theme=theme, open_label=open_label,
              texts=texts).run()  # fmt: skip

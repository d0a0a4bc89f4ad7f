"""`spanlab label` and `spanlab triage`: the CLI builds the app's world, then hands it over.

The store and corpus are opened here (STYLE habit 1) and Textual is imported only when a
screen opens, so every other command starts without it.
"""

from __future__ import annotations

from typing import Annotated

import typer

from evaluator.pipeline.project import RUNS_DIR
from labeler.cli._common import (
    AnnotatorOpt,
    CorpusOpt,
    DbOpt,
    ThemeOpt,
    annotator_name,
    handles_errors,
    open_project,
    project,
    read_corpus,
)
from labeler.core import binding
from labeler.core.errors import StoreError
from labeler.core.store import Store

app = typer.Typer()
"""The app commands, at the top of the command line."""


@app.command(epilog="Example: spanlab label --annotator alice --theme spanlab-light")
@handles_errors
def label(
    annotator: AnnotatorOpt = None,
    theme: ThemeOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
    blind: Annotated[
        bool,
        typer.Option(
            help="Double annotation: see and label only your own version of each query "
            "(also `blind = true` in spanlab.toml)."
        ),
    ] = False,
) -> None:
    """The labelling app: queries, evidence spans, patterns, slices, abstention."""
    proj, docs, store, status = open_project(corpus, db)
    if blind or proj.blind:
        store.view = annotator_name(annotator)
    if status.waiting:
        raise StoreError(
            f"{status.waiting} span(s) wait for review after the corpus changed",
            hint="run `spanlab review` first, so no label is shown at a wrong place",
        )
    from labeler.tui.launch import run_label_app

    run_label_app(store, docs, annotator=annotator_name(annotator), theme=theme)


@app.command(epilog="Example: spanlab triage latest --theme spanlab-high-contrast")
@handles_errors
def triage(
    run: Annotated[str | None, typer.Argument(help="Run id or prefix (default: latest).")] = None,
    theme: ThemeOpt = None,
    annotator: AnnotatorOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
) -> None:
    """Gained and lost queries of a run, with both candidates' cuts over the evidence."""
    proj = project(corpus, db)
    docs = read_corpus(proj)
    from labeler.tui.triage.launch import label_opener, run_triage_app

    opener, texts = None, None
    if proj.db.exists():
        store = Store.open(proj.db, create=False)
        if not binding.sync(store, docs).waiting:
            opener = label_opener(store, docs, annotator=annotator_name(annotator))
        texts = {q.id: q.text for q in store.queries()}
    run_triage_app(
        proj.root / RUNS_DIR, docs, run_id=run, theme=theme, open_label=opener,
        texts=texts,
    )  # fmt: skip

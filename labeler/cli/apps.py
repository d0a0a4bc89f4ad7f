"""`spanlab label`, `spanlab adjudicate` and `spanlab triage`: the CLI builds the app's
world, then hands it over; each opens the one app, on the screen it names.

The store and corpus are opened here (STYLE habit 1) and Textual is imported only when a
screen opens, so every other command starts without it.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from evaluator.runs.place import RUNS_DIR
from labeler.cli._common import (
    AnnotatorOpt,
    CorpusOpt,
    DbOpt,
    ThemeOpt,
    checked,
    corpus_source,
    handles_errors,
    member,
    open_project,
    project,
    read_corpus,
)
from labeler.core.anchoring.binding import CorpusStatus
from labeler.core.errors import StoreError
from labeler.core.project.cache_place import place_of
from labeler.core.store import Store
from labeler.core.team.roles import Act

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
            "(also the project's `blind = true`)."
        ),
    ] = False,
) -> None:
    """The labelling app: queries, evidence spans, patterns, slices, abstention."""
    who = member(project(corpus, db), annotator, Act.LABEL)
    proj, docs, store, status = open_project(corpus, db)
    if blind or proj.blind:
        store.view = who.name
    refuse_waiting(status)
    from labeler.tui.launch import run_app

    run_app(store, docs, annotator=who.name, member=who, theme=theme,
            runs_dir=proj.root / RUNS_DIR, trim_spans=proj.trim_spans,
            source=corpus_source(proj), embedding_cache=place_of(proj),
            candidates=proj.candidates,
            blind=blind or proj.blind)  # fmt: skip


def refuse_waiting(status: CorpusStatus) -> None:
    """Labels are shown over the text only once no span waits for review."""
    if status.waiting:
        raise StoreError(
            f"{status.waiting} span(s) wait for review after the corpus changed",
            hint="run `spanlab review` first, so no label is shown at a wrong place",
        )


@app.command(epilog="Example: spanlab adjudicate --annotator rita")
@handles_errors
def adjudicate(
    annotator: AnnotatorOpt = None,
    theme: ThemeOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
) -> None:
    """The app on its agreement screen: keep a version, merge, or send a query back."""
    who = member(project(corpus, db), annotator, Act.ADJUDICATE)
    proj, docs, store, status = open_project(corpus, db)
    refuse_waiting(status)
    if not store.double_annotated():
        from labeler.core.agreement import NO_DOUBLE

        raise StoreError(NO_DOUBLE)
    if proj.blind:  # a blind annotator does not decide their own versions (§3)
        store.view = who.name
        closed = store.blind_closed()
        if closed is not None:
            raise StoreError(closed)
    from labeler.tui.launch import run_app

    run_app(store, docs, annotator=who.name, member=who, screen="agreement", theme=theme,
            runs_dir=proj.root / RUNS_DIR, trim_spans=proj.trim_spans,
            source=corpus_source(proj), embedding_cache=place_of(proj),
            candidates=proj.candidates,
            blind=proj.blind)  # fmt: skip


@app.command(epilog="Example: spanlab triage latest --theme spanlab-high-contrast")
@handles_errors
def triage(
    run: Annotated[str | None, typer.Argument(help="Run id or prefix (default: latest).")] = None,
    theme: ThemeOpt = None,
    annotator: AnnotatorOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
    against: Annotated[
        str | None, typer.Option(help="Triage RUN against this run (§16): as `spanlab diff`.")
    ] = None,
    candidate: Annotated[
        str | None, typer.Option(help="With --against: RUN's candidate (in both runs).")
    ] = None,
    against_candidate: Annotated[
        str | None, typer.Option(help="With --against: that run's candidate to compare with.")
    ] = None,
    shared: Annotated[
        bool, typer.Option(help="With --against: compare the shared queries across corpora.")
    ] = False,
) -> None:
    """Gained and lost queries of a run, with both candidates' cuts over the evidence."""
    say_loading("triage")
    proj = project(corpus, db)
    who = member(proj, annotator)
    diff = None
    if against is not None:  # refused as `spanlab diff` refuses, before the corpus is read
        from labeler.tui.triage.diff_model import open_diff

        diff = open_diff(proj.root / RUNS_DIR, against, run or "latest", candidate=candidate,
                         against_candidate=against_candidate, shared=shared)  # fmt: skip
    docs = read_corpus(proj)
    from labeler.tui.launch import run_app

    store = checked(Store.open(proj.db, create=False)) if proj.db.exists() else None
    run_app(store, docs, annotator=who.name, member=who, screen="triage", theme=theme,
            runs_dir=proj.root / RUNS_DIR, run_id=run, trim_spans=proj.trim_spans,
            source=corpus_source(proj), embedding_cache=place_of(proj),
            candidates=proj.candidates,
            diff=diff, blind=proj.blind)  # fmt: skip


def say_loading(screen: str) -> None:
    """A line on stderr while a slow screen loads (seconds before the app's first paint)."""
    if sys.stderr.isatty():
        sys.stderr.write(f"spanlab: loading {screen} …\n")
        sys.stderr.flush()

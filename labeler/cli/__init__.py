"""The `spanlab` command line (§10): one typer app assembled from one module per group.

Each command parses, makes one library call, renders (sqlite-utils' thin CLI); this is
the only package that imports typer. Domain errors become a message on stderr and exit
code 2 (`_common.handles_errors`); stdout carries data only.
"""

from __future__ import annotations

import gc
import sys
from typing import Annotated

import typer

from labeler.cli import apps, cache, corpus, diff, evaluate, labels, plan, review
from labeler.cli._common import fail

app = typer.Typer(
    name="spanlab",
    help="Tell, with evidence, whether a chunking change made retrieval better or worse.",
    epilog="Example: spanlab init data/corpus && spanlab corpus status",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


def show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"spanlab {version('spanlab')}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=show_version, is_eager=True, help="Print the version."),
    ] = None,
) -> None:
    """Tell, with evidence, whether a chunking change made retrieval better or worse."""


app.add_typer(corpus.app)
app.add_typer(apps.app)
app.add_typer(review.app)
app.add_typer(evaluate.app)
app.add_typer(plan.app)
app.add_typer(diff.app)
app.add_typer(cache.app)
app.add_typer(corpus.group, name="corpus")
app.add_typer(labels.group, name="labels")


def main() -> None:
    # What importing the command line made lives as long as the process: frozen, the
    # collector stops walking it on every pass (half a plan's collection time, §17).
    gc.freeze()
    try:
        app()
    except KeyboardInterrupt:
        fail("interrupted")
        sys.exit(130)
    finally:
        # The process ends here: what it holds is frozen too, so the interpreter's exit does
        # not walk every object once more looking for cycles (~0.1 s of a plan's CPU, §17);
        # atexit handlers and flushing run as before.
        gc.freeze()

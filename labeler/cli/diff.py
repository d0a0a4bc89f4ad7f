"""`spanlab diff RUN_A RUN_B` (§16): run against run, for a reviewer — main's run against
the pull request's, or one setting against another.

Thin: parse, call `evaluator.runs.diff`, render with `diff_text`. Exit 0 with the
comparison, 2 on bad input (not a run, nothing shared, other corpora without --shared).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evaluator.runs.place import RUNS_DIR
from labeler.cli._common import (
    CorpusOpt,
    handles_errors,
    hidden_queries,
    private_files,
    project,
    say,
)
from labeler.core.files import sharing
from labeler.core.team.visibility import BLIND_WHY

app = typer.Typer()
"""The diff command, at the top of the command line."""

RunArg = Annotated[
    str, typer.Argument(help="Run id, unique id prefix, run folder, run.json, or 'latest'.")
]


@app.command(
    "diff",
    epilog="Example: spanlab diff main-run/ latest --candidate tok128-ov0 --markdown diff.md",
)
@handles_errors
def diff_command(
    run_a: RunArg,
    run_b: RunArg,
    candidate: Annotated[
        str | None,
        typer.Option(help="Candidate to compare (in A; in both without --against-candidate)."),
    ] = None,
    against_candidate: Annotated[
        str | None, typer.Option("--against-candidate", help="Candidate of B to compare A's with.")
    ] = None,
    shared: Annotated[
        bool,
        typer.Option(
            "--shared", help="Compare the shared queries even across corpora or label sets."
        ),
    ] = False,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="Also write the comparison as markdown here.")
    ] = None,
    corpus: CorpusOpt = None,
) -> None:
    """Compare two runs on the queries they share: gained, lost, causes, deltas, statistics."""
    from evaluator.runs.diff import candidate_pairs, diff_runs, load_run_ref, without_queries
    from evaluator.runs.diff_text import diff_lines, diff_markdown

    proj = project(corpus)
    runs_dir = proj.root / RUNS_DIR
    a, b = load_run_ref(runs_dir, run_a), load_run_ref(runs_dir, run_b)
    hidden = hidden_queries(proj) & (set(a.queries) | set(b.queries))
    diffs = [without_queries(diff_runs(a, b, x, y, shared_only=shared), hidden)
             for x, y in candidate_pairs(a, b, candidate, against_candidate)]  # fmt: skip
    if hidden:
        say(f"warning: {len(hidden)} quer(y/ies) not listed, their versions wait for a "
            f"decision: {BLIND_WHY}", err=True)  # fmt: skip
    for n, d in enumerate(diffs):
        say(("\n" if n else "") + "\n".join(diff_lines(d)))
    if markdown is not None:
        from labeler.core.formats._common import write_atomic

        shown = (set(a.queries) | set(b.queries)) - hidden
        with sharing.private_files(private_files(proj, shown, markdown)):
            write_atomic(markdown, "\n".join(diff_markdown(d) for d in diffs))

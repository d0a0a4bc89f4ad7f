"""`spanlab plan`: what each candidate can reach before anything is embedded (§17).

It parses, makes one call (`evaluator.pipeline.plan.plan_project`) and renders: the rich
tables on a terminal, or the plan as JSON on stdout with `--json`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from labeler.cli._common import CorpusOpt, DbOpt, JsonFlag, handles_errors, say
from labeler.cli.evaluate import CandidatesArg, PresetOpt, _table_console

app = typer.Typer()
"""The plan command, at the top of the command line."""

PlanLabelsOpt = Annotated[
    Path | None,
    typer.Option("--labels", help="Frozen label set (default: the store's; none: statistics)."),
]


@app.command("plan", epilog="Example: spanlab plan candidates.toml --labels frozen.json")
@handles_errors
def plan_command(
    candidates_file: CandidatesArg = None,
    labels: PlanLabelsOpt = None,
    json_out: JsonFlag = False,
    preset: PresetOpt = None,
    corpus: CorpusOpt = None,
    db: DbOpt = None,
) -> None:
    """Per candidate, before any embedding: chunk count and token lengths, realized overlap,
    index size, embedding cost and the ceiling; per labelled span, who cuts it and what
    would hold it. Writes nothing."""
    from evaluator.pipeline.plan import plan_project
    from evaluator.plan.text import print_plan

    found = plan_project(candidates_file, labels_file=labels, preset=preset, corpus_dir=corpus,
                         db=db)  # fmt: skip
    if json_out:
        say(json.dumps(found.to_json(), indent=1, ensure_ascii=False))
        return
    print_plan(found, _table_console())

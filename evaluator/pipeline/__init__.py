"""A run in steps — cut, embed, index, query, measure, compare, gate — and the entry points.

`run_evaluation` measures candidates on given labels and returns values; `run_file` turns
them into the RunFile the runs wing writes; `evaluate_project` does both for the project in
the working folder and writes its run folder; `demo` prepares the bundled demo. The CLI,
the demo and the TUI call these and nothing below them. The names load on first use, so
importing one step (`pipeline.plan`) does not import the whole run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evaluator.pipeline.options import RunOptions
    from evaluator.pipeline.project import (
        RUNS_DIR,
        Evaluated,
        Labels,
        evaluate_project,
        load_labels,
    )
    from evaluator.pipeline.record import run_file
    from evaluator.pipeline.result import CandidateRun, RunResult
    from evaluator.pipeline.run import run_evaluation

_HOMES = {
    "RunOptions": "options",
    "RUNS_DIR": "project",
    "Evaluated": "project",
    "Labels": "project",
    "evaluate_project": "project",
    "load_labels": "project",
    "run_file": "record",
    "CandidateRun": "result",
    "RunResult": "result",
    "run_evaluation": "run",
}
"""Name -> the module of this package that defines it."""

__all__ = [
    "RUNS_DIR",
    "CandidateRun",
    "Evaluated",
    "Labels",
    "RunOptions",
    "RunResult",
    "evaluate_project",
    "load_labels",
    "run_evaluation",
    "run_file",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)

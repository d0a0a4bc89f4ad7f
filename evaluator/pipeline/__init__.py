"""A run in steps — cut, embed, index, query, measure, compare, gate — and the entry points.

`run_evaluation` measures candidates on given labels and returns values; `run_file` turns
them into the RunFile the runs wing writes; `evaluate_project` does both for the project in
the working folder and writes its run folder; `demo` prepares the bundled demo. The CLI,
the demo and the TUI call these and nothing below them.
"""

from evaluator.pipeline.options import RunOptions
from evaluator.pipeline.project import RUNS_DIR, Evaluated, Labels, evaluate_project, load_labels
from evaluator.pipeline.record import run_file
from evaluator.pipeline.result import CandidateRun, RunResult
from evaluator.pipeline.run import run_evaluation

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

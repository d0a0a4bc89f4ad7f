"""Write a run folder, `.spanlab/runs/<id>/` (§9): run.json, report.md, junit.xml and
frontier.svg, every one from the same RunFile; then index the run for triage.

The RunFile is all the writer sees, so each file shows exactly what run.json holds.
"""

from __future__ import annotations

from pathlib import Path

from evaluator.runs import index as runs_index
from evaluator.runs.frontier import frontier_points, frontier_svg
from evaluator.runs.junit import junit_xml
from evaluator.runs.model import FILE_NAME, RunFile, write_run_file
from evaluator.runs.report import report_md


def write_run(run: RunFile, runs_dir: Path) -> Path:
    """Write every file of the run into `runs_dir/<id>`; returns the run folder."""
    folder = runs_dir / run.id
    folder.mkdir(parents=True, exist_ok=False)
    write_run_file(run, folder / FILE_NAME)
    (folder / "report.md").write_text(report_md(run), "utf-8")
    (folder / "junit.xml").write_text(junit_xml(run), encoding="utf-8")
    (folder / "frontier.svg").write_text(frontier_svg(frontier_points(run)), encoding="utf-8")
    runs_index.record(runs_dir, run, folder)
    return folder

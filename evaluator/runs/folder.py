"""Write a run folder, `.spanlab/runs/<id>/` (§9): run.json, report.md, junit.xml,
frontier.svg and chunks.tsv, every one from the same RunFile; then index the run for triage.

The RunFile is all the writer sees, so each file shows exactly what run.json holds. The
files are written into a hidden folder beside it and renamed into place when all are
written, so a run folder appears only complete (a full disk leaves nothing behind).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from evaluator.chunk import Chunk
from evaluator.generation.run_file import FILE_NAME as ANSWERS_FILE
from evaluator.generation.run_file import answers_jsonl
from evaluator.generation.run_file import digest as answers_digest
from evaluator.runs import index as runs_index
from evaluator.runs.chunk_file import FILE_NAME as CHUNKS_FILE
from evaluator.runs.chunk_file import chunk_table_tsv, digest
from evaluator.runs.frontier import budget_curves, frontier_points, frontier_svg
from evaluator.runs.junit import junit_xml
from evaluator.runs.model import FILE_NAME, RunFile
from evaluator.runs.readback import require_readable
from evaluator.runs.report import report_md
from labeler.core.errors import SpanlabError, StoreError, UnsafeFile
from labeler.core.files import nofollow, sharing
from labeler.core.files.access import refused_write

ASIDE_PREFIX = "."
"""Run folders being written start with this, so listings pass them by."""


def write_run(run: RunFile, runs_dir: Path, *, private: bool = False) -> Path:
    """Write every file of the run into `runs_dir/<id>`, whole or not at all; returns it.
    `private`: the folder stays its writer's alone (2700), as a lead's run that holds
    versions waiting for a decision must (§21); the runs index lists it all the same."""
    folder = runs_dir / run.id
    if folder.exists():
        raise StoreError("a run folder of that id exists already", file=str(folder))
    table = None
    if run.chunk_tables:  # the table first: run.json records its digest
        table = chunk_table_tsv(run.chunk_tables, unit_kinds(run))
        run = replace(run, chunk_table_sha256=digest(table))
    answers = None
    if run.generation is not None:  # the answers first too: run.json records their digest
        answers = answers_jsonl(run.answers)
        run = replace(
            run, generation=replace(run.generation, answers_sha256=answers_digest(answers))
        )
    text = require_readable(run, str(folder))  # what spanlab writes, spanlab reads (§21)
    try:
        sharing.make_folder(runs_dir)  # the group's, whatever the run's own folder is
        with sharing.private_files(private):
            aside = sharing.make_temp_folder(runs_dir, f"{ASIDE_PREFIX}{run.id}.")
    except OSError as exc:
        message, hint = refused_write(runs_dir, exc)
        raise StoreError(f"the run: {message}", file=str(runs_dir), hint=hint) from None
    try:  # a finished run is its writer's to change, the group's to read (§21)
        with sharing.private_files(private), sharing.group_reads():
            _write_files(run, aside, text, table)
            if answers is not None:
                _write(aside / ANSWERS_FILE, answers)
            sharing.publish_folder(aside, folder)
    except (OSError, SpanlabError) as exc:
        shutil.rmtree(aside, ignore_errors=True)
        if isinstance(exc, UnsafeFile):  # it names the file and its owner itself
            raise
        message, hint = refused_write(runs_dir, exc) if isinstance(exc, OSError) else (
            exc.message, exc.hint)  # fmt: skip
        raise StoreError(f"the run: {message}", file=str(folder), hint=hint) from None
    runs_index.record(runs_dir, run, folder)
    return folder


def _write_files(run: RunFile, folder: Path, text: str, table: str | None) -> None:
    _write(folder / FILE_NAME, text)  # the text the reader read back
    _write(folder / "report.md", report_md(run))
    _write(folder / "junit.xml", junit_xml(run))
    _write(folder / "frontier.svg", frontier_svg(frontier_points(run), budget_curves(run)))
    if table is not None:
        _write(folder / CHUNKS_FILE, table)


def _write(path: Path, text: str) -> None:
    """One file of the run, whole; a refusal names the file (`run.json: cannot write: …`)."""
    try:
        sharing.write_text(path, text)
    except OSError as exc:
        message, hint = refused_write(path, exc)
        raise StoreError(f"{path.name}: {message}", file=str(path), hint=hint) from None


def unit_kinds(run: RunFile) -> dict[str, tuple[str, Sequence[Chunk]]]:
    """Candidate name -> (`parent` or `window`, the units it sends), for chunks.tsv."""
    out: dict[str, tuple[str, Sequence[Chunk]]] = {}
    for name, units in run.unit_tables.items():
        context = run.candidate(name).spec.context
        out[name] = ("parent" if context is not None and context.parent is not None
                     else "window", units)  # fmt: skip
    return out


def append_job_summary(run: RunFile, path: Path) -> None:
    """Append the run's report.md to a CI job summary (`GITHUB_STEP_SUMMARY`), whole: the
    report needs no image or other file beside it."""
    append_summary_text(report_md(run), path)


def append_summary_text(text: str, path: Path) -> None:
    """Append markdown (a report, a run-against-run diff) to a CI job summary."""
    nofollow.require_output(path, fix="set GITHUB_STEP_SUMMARY to a regular file")
    try:  # appended in place (CI's file), never through a link or into a FIFO or device
        fd = nofollow.open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(text + "\n")
    except OSError as exc:
        raise StoreError(f"cannot append the job summary: {exc.strerror}", file=str(path)) from None

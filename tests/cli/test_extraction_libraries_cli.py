"""A second library as an extractor candidate (§22): `spanlab eval` with an `[extraction]`
alternative naming `pdf:pdfplumber` reads the PDF with pdfplumber and names what its reading
does to each span and query; an extractor whose library is not installed is refused before
any work, naming the file, the key and the pip command."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.metrics.compare import Status
from evaluator.runs.model import read_run
from labeler.cli import app
from labeler.core.corpus.extract import choices
from tests.cli.test_extraction_cli import CANDIDATES, folder

__all__ = ["folder"]  # the project: plans.pdf and faq.md, two queries labelled in the PDF

PLUMBER = (
    CANDIDATES.split("[extraction]")[0]
    + """[extraction]

[[extraction.alternative]]
name = "plumber"
extractor = "pdf:pdfplumber"

[[extraction.alternative]]
name = "plumber-flow"
extractor = "pdf:pdfplumber"
settings = { order = "flow" }
"""
)


def test_eval_compares_pdfplumbers_reading_span_by_span_and_query_by_query(folder: Path) -> None:
    (folder / "candidates.toml").write_text(PLUMBER, encoding="utf-8")
    done = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert done.exit_code == 0, done.stdout + done.stderr
    out = " ".join(done.stdout.split())
    # pdfplumber reads the two columns across and writes the table's cells without pipes,
    # its last row on page 3 under the footer `Page 2`: both spans lost to retrieval.
    said = out.split("plumber-flow: ")[0]
    assert "row without header: q-0001 span 1 in plans.pdf 344–362 (score 0.60, lost to" in said
    assert "interleaved: q-0002 span 1 in plans.pdf 0–90 (score 0.56, lost to retrieval)" in said
    run = read_run(next((folder / ".spanlab" / "runs").iterdir()))
    assert run.extraction is not None
    plumber, flow = run.extraction.alternatives
    assert (plumber.extractor, flow.settings) == ("pdf:pdfplumber", {"order": "flow"})
    assert plumber.extracted == ("plans.pdf",) and plumber.failed == ()
    assert plumber.counts["row-without-header"] == 1 and plumber.counts["interleaved"] == 1
    assert plumber.comparison is not None
    lost = [c.query for c in plumber.comparison.with_status(Status.LOST)]
    assert lost == ["q-0001", "q-0002"]


def test_an_extractor_whose_library_is_missing_is_refused_with_the_pip_command(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "candidates.toml").write_text(PLUMBER, encoding="utf-8")
    monkeypatch.setattr(choices, "installed", lambda module: module != "pdfplumber")
    done = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert done.exit_code == 2
    said = " ".join(done.stderr.split())
    assert (
        "candidates.toml, key extraction.alternative[0].extractor: pdf:pdfplumber needs "
        "pdfplumber, which is not installed"
    ) in said, said
    assert "pip install 'spanlab[pdfplumber]'" in said
    assert "Traceback" not in done.stderr
    assert not (folder / ".spanlab" / "runs").exists() or not any(
        (folder / ".spanlab" / "runs").iterdir()
    )

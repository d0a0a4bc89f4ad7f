"""The issue's command-line "done when" (§22): `spanlab init` on a folder with a PDF, an HTML
page and a DOCX reads all three; a bad source is named and skipped; `spanlab show` prints the
page of a span in a PDF, and so does the triage screen's query detail."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.runs.model import read_run
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.values import Query, Span, Status
from labeler.tui.triage.detail import query_detail
from labeler.tui.triage.model import RunView
from labeler.tui.triage.render import fates_content
from tests.core.sources.makers import HELP_HTML, blank_pdf, handbook_pdf, policy_docx

CANDIDATES = """[settings]
baseline = "whole"
k = 1
depth = 5
retriever = "lexical"

[[candidate]]
name = "whole"
splitter = "chars"
size = 2000

[[candidate]]
name = "small"
splitter = "chars"
size = 100
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "handbook.pdf").write_bytes(handbook_pdf())
    (root / "help.html").write_text(HELP_HTML, encoding="utf-8")
    (root / "policy.docx").write_bytes(policy_docx())
    (tmp_path / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    return tmp_path


def test_init_reads_a_pdf_an_html_page_and_a_docx(folder: Path) -> None:
    done = CliRunner().invoke(app, ["init", "corpus"])
    assert done.exit_code == 0, done.stdout + done.stderr
    # 335 (handbook.pdf) + 205 (help.html) + 126 (policy.docx), as the extractor tests say
    assert "corpus   corpus  3 documents, 666 characters" in done.stdout
    assert done.stderr == ""
    status = CliRunner().invoke(app, ["corpus", "status", "--json"])
    assert json.loads(status.stdout)["documents"] == 3


def test_a_scanned_pdf_is_named_and_skipped(folder: Path) -> None:
    (folder / "corpus" / "scan.pdf").write_bytes(blank_pdf())
    with zipfile.ZipFile(folder / "corpus" / "bomb.docx", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", "<w:document/>")
        z.writestr("\x1b[31mred", bytes(20 << 20))
    done = CliRunner().invoke(app, ["init", "corpus"])
    assert done.exit_code == 0, done.stdout + done.stderr
    assert "3 documents" in done.stdout
    assert ("warning: skipped scan.pdf (the PDF has no text (scanned pages? spanlab does no "
            "OCR); run OCR on it first, or remove it from the corpus)") in done.stderr  # fmt: skip
    assert ("warning: skipped bomb.docx (its entry '\\x1b[31mred' inflates 20,971,520 bytes "
            "from far fewer (a zip bomb?))") in done.stderr  # fmt: skip
    assert "\x1b" not in done.stderr


def test_show_prints_the_page_of_a_span_in_a_pdf(folder: Path) -> None:
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    corpus = Corpus.read(folder / "corpus")
    text = corpus.text("handbook.pdf")
    start = text.index("| Basic | 14 | 0 |")
    span = Span.from_text(text, "handbook.pdf", start, start + 18)
    q = Query("q-0001", "How many days does the Basic plan give?", status=Status.LABELLED,
              evidence=(span,))  # fmt: skip
    labelset.write_json(labelset.to_json([q], corpus), folder / "labels.json")
    done = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert done.exit_code == 0, done.stdout + done.stderr
    shown = CliRunner().invoke(app, ["show", "latest", "q-0001"])
    assert shown.exit_code == 0, shown.stderr
    assert f"evidence e1: handbook.pdf {start}..{start + 18} (18 ch, page 2):" in shown.stdout
    # The triage screen's query detail says it too.
    (folder_of_run,) = (folder / ".spanlab" / "runs").iterdir()
    detail = query_detail(RunView(read_run(folder_of_run)), "q-0001", "small", corpus)
    assert detail.places == ("page 2",)
    drawn = fates_content(detail, k=1, threshold=0.8).plain
    assert f"e1 handbook.pdf {start}..{start + 18} (18 ch, page 2)" in drawn


def test_a_corpus_of_only_unreadable_sources_says_why(folder: Path) -> None:
    for name in ("handbook.pdf", "help.html", "policy.docx"):
        (folder / "corpus" / name).unlink()
    (folder / "corpus" / "scan.pdf").write_bytes(blank_pdf())
    done = CliRunner().invoke(app, ["init", "corpus"])
    assert done.exit_code == 2
    assert done.stderr.startswith(
        "error: corpus: the corpus holds no document, every document was passed over\n"
        "  skipped scan.pdf (the PDF has no text (scanned pages? spanlab does no OCR); "
    ), done.stderr
    assert "Traceback" not in done.stderr


def test_init_keeps_each_extraction_in_the_accounts_own_cache(folder: Path) -> None:
    """The next command that reads the corpus takes them from there (§22): one entry per
    source, in `.spanlab/extractions/<login>/`, the account's alone."""
    from labeler.core.team.roles import login_name

    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    own = folder / ".spanlab" / "extractions" / login_name()
    entries = sorted(own.iterdir())
    assert len(entries) == 3 and all(p.suffix == ".json" for p in entries)
    assert {p.stat().st_mode & 0o777 for p in entries} == {0o600}
    stamps = [p.stat().st_mtime_ns for p in entries]
    status = CliRunner().invoke(app, ["corpus", "status", "--json"])
    assert json.loads(status.stdout)["documents"] == 3
    assert [p.stat().st_mtime_ns for p in sorted(own.iterdir())] == stamps  # read, not written

"""The issue's extractor "done when" (§22): `spanlab eval` with `[extraction]` names the table
row one extractor tears from its header and the other keeps, and the query whose retrieval
it loses; run.json and report.md say the same; bad input is refused naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.metrics.compare import Status
from evaluator.runs.model import read_run
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.values import Query, Span
from labeler.core.values import Status as Labelled
from tests.core.sources.makers import compared_pdf

CANDIDATES = """[settings]
baseline = "md"
k = 1
depth = 5
retriever = "lexical"

[[candidate]]
name = "md"
splitter = "markdown"
size = 200

[extraction]

[[extraction.alternative]]
name = "headers-kept"
extractor = "pdf:pypdfium2"
settings = { headers = "keep" }

[[extraction.alternative]]
name = "columns-off"
extractor = "pdf:pypdfium2"
settings = { columns = "off" }
"""

FAQ = """# Gold

Gold is the sponsor of our annual fair; gold medals go to the best stands.

# Teams

A team plan covers forty users.
"""

QUOTES = {
    "q-0001": ("What fee does the Gold plan charge?", "| Gold | 90 | 20 |"),
    "q-0002": ("When are refunds paid?", "Refunds are paid within fourteen\n"
               "days of the receipt of the payment by the team in charge."),
}  # fmt: skip


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "plans.pdf").write_bytes(compared_pdf())
    (root / "faq.md").write_text(FAQ, encoding="utf-8")
    (tmp_path / "candidates.toml").write_text(CANDIDATES, encoding="utf-8")
    assert CliRunner().invoke(app, ["init", "corpus"]).exit_code == 0
    corpus = Corpus.read(root)
    text = corpus.text("plans.pdf")
    queries = []
    for qid, (question, quote) in QUOTES.items():
        start = text.index(quote)
        span = Span.from_text(text, "plans.pdf", start, start + len(quote))
        queries.append(Query(qid, question, status=Labelled.LABELLED, evidence=(span,)))
    labelset.write_json(labelset.to_json(queries, corpus), tmp_path / "labels.json")
    return tmp_path


def test_eval_names_the_torn_row_and_the_query_it_loses(folder: Path) -> None:
    done = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert done.exit_code == 0, done.stdout + done.stderr
    out = " ".join(done.stdout.split())
    # The row `| Gold | 90 | 20 |` (offsets 344–362 of the project's text) is torn from its
    # header by keeping the running footer `Page 2` between them, found at 359–377 (0.89).
    assert (
        "row without header: q-0001 span 1 in plans.pdf 344–362 (score 0.89, found at 359–377)"
    ) in out
    assert "query lost: q-0001 — span 1 row without header; crowded" in out
    assert "query lost: q-0002" not in out.split("columns-off: ")[0]
    # Columns off keeps the row, and interleaves the refunds column with the shipping one.
    assert "interleaved: q-0002 span 1 in plans.pdf 0–90 (score 0.00, lost to retrieval)" in out
    assert "query lost: q-0002 — span 1 interleaved (lost to retrieval)" in out
    (run_folder,) = (folder / ".spanlab" / "runs").iterdir()
    run = read_run(run_folder)
    assert run.extraction is not None
    kept, interleaved = run.extraction.alternatives
    assert kept.counts["row-without-header"] == 1 and kept.counts["kept"] == 1
    assert interleaved.counts["kept"] == 1 and interleaved.counts["interleaved"] == 1
    assert kept.comparison is not None and interleaved.comparison is not None
    assert [c.query for c in kept.comparison.with_status(Status.LOST)] == ["q-0001"]
    saved = json.loads((run_folder / "run.json").read_text())["extraction"]
    assert saved["alternatives"]["headers-kept"]["spans"][0]["found"] == [359, 377]
    report = (run_folder / "report.md").read_text()
    assert "### `headers-kept`: pdf:pypdfium2 headers=keep" in report
    row = "| columns-off | pdf:pypdfium2 columns=off | 1 | 0 | 0 | 0 | 0 | 1 | 0 | 1 | 0 | 1 |"
    assert row in report


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            'extractor = "pdf:pypdfium2"',
            "extraction.alternative[0].extractor: unknown extractor 'pdf:magic' (known: "
            "pdf:pypdfium2, pdf:pypdfium2-plain, pdf:pdfplumber, html:stdlib, html:inscriptis, "
            "docx:python-docx)",
        ),
        (
            'settings = { headers = "keep" }',
            "extraction.alternative[0].settings.headers: headers "
            "must be one of 'drop', 'keep', got 'maybe'",
        ),
    ],
)
def test_a_bad_extractor_or_setting_is_refused_naming_the_key(
    folder: Path, line: str, said: str
) -> None:
    bad = CANDIDATES.replace('extractor = "pdf:pypdfium2"', 'extractor = "pdf:magic"', 1)
    if "settings" in line:
        bad = CANDIDATES.replace('headers = "keep"', 'headers = "maybe"')
    (folder / "candidates.toml").write_text(bad, encoding="utf-8")
    done = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert done.exit_code == 2
    assert said in " ".join(done.stderr.split()), done.stderr
    assert "Traceback" not in done.stderr
    assert not (folder / ".spanlab" / "runs").exists() or not any(
        (folder / ".spanlab" / "runs").iterdir()
    )

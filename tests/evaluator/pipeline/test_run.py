"""A whole evaluation on a tiny corpus with the lexical retriever: run files, gates, show."""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluator.metrics.compare import Status
from evaluator.runs.model import RunFile, read_run, write_run_file
from evaluator.runs.model_queries import EvidenceRef
from labeler.cli import app
from labeler.core.corpus.folder import Corpus
from labeler.core.labels.labelset import to_json, write_json
from labeler.core.values import Boundary, Query, Span

CANARY = "ZEBRA-CANARY-7731"
DOCS = {
    "refunds.md": (
        "# Refunds\n\nIf the order arrived damaged, we refund the full price within 14 days. "
        "Refunds go back to the original card. " + f"Internal code {CANARY} is secret.\n\n"
        "## Exceptions\n\nGift cards cannot be refunded. Sale items are final.\n"
    ),
    "shipping.md": (
        "# Shipping\n\nStandard shipping takes 3 to 5 working days. Express shipping takes one "
        "day and costs 9 EUR. Orders over 50 EUR ship free.\n"
    ),
}
CANDIDATES = """
[settings]
baseline = "c60-ov20"
k = 2
depth = 10
retriever = "lexical"

[[candidate]]
name = "c60-ov20"
splitter = "chars"
size = 60
overlap = 20

[[candidate]]
name = "c30"
splitter = "chars"
size = 30

[gates]
max_lost = {max_lost}
"""


def span(corpus: Corpus, doc: str, quote: str) -> Span:
    text = corpus.text(doc)
    start = text.index(quote)
    return Span.from_text(text, doc, start, start + len(quote))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    for name, text in DOCS.items():
        (corpus_dir / name).write_text(text, encoding="utf-8")
    corpus = Corpus.read(corpus_dir)
    queries = [
        Query("q-0001", "damaged order refund days", evidence=(
            span(corpus, "refunds.md", "we refund the full price within 14 days"),),
            boundary=Boundary.CONDITION_CONSEQUENCE, slices=("critical",)),
        Query("q-0002", "express shipping cost", evidence=(
            span(corpus, "shipping.md", "Express shipping takes one day and costs 9 EUR"),)),
        Query("q-0003", "gift cards refunded", evidence=(
            span(corpus, "refunds.md", "Gift cards cannot be refunded."),)),
        Query("q-0004", "do you ship to Mars", abstain=True),
    ]  # fmt: skip
    write_json(to_json(queries, corpus), tmp_path / "labels.json")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["init", "corpus"]).exit_code == 0
    return tmp_path


def latest_folder(project: Path) -> Path:
    return sorted((project / ".spanlab" / "runs").iterdir())[-1]


def run_gate(project: Path, max_lost: int) -> tuple[int, str, RunFile]:
    (project / "candidates.toml").write_text(CANDIDATES.format(max_lost=max_lost), "utf-8")
    result = CliRunner().invoke(app, ["gate", "candidates.toml", "--labels", "labels.json"])
    return result.exit_code, result.output, read_run(latest_folder(project))


def test_run_json_has_flat_metrics_and_per_query_rankings(project: Path) -> None:
    code, _, run = run_gate(project, max_lost=10)
    assert code == 0
    raw = json.loads((latest_folder(project) / "run.json").read_text("utf-8"))
    base = run.candidate("c60-ov20")
    for key in ("chunk_count", "oracle_recall", "evidence_recall@k", "chroma_iou"):
        assert key in base.metrics
        assert key in raw["candidates"]["c60-ov20"]["metrics"]  # flat in the file, too
    # 60-char windows with step 40 over each of the two documents
    lengths = [len(Corpus.from_texts(DOCS).text(d)) for d in sorted(DOCS)]
    expected = sum(1 + max(0, -(-(n - 60) // 40)) for n in lengths)
    assert base.metric("chunk_count") == expected
    q1 = run.queries["q-0001"]
    assert q1.evidence == (EvidenceRef("refunds.md", 41, 80),)
    assert len(q1.candidates["c30"].ranked) == 10
    assert q1.candidates["c30"].status in {"gained", "lost", "unchanged-hit",
                                           "unchanged-miss"}  # fmt: skip
    assert run.queries["q-0004"].candidates["c30"].status is None


def test_gate_exits_one_exactly_when_a_gate_breaks(project: Path) -> None:
    code_pass, _, run = run_gate(project, max_lost=10)
    # Issue 29: the gates read the deciding basis (here the budget: the sizes differ).
    deciding = run.budget_comparisons if run.decide == "budget" else run.comparisons
    lost = deciding["c30"].overall.counts.lost
    assert code_pass == 0
    assert lost >= 1, "the 30-char windows should cut at least one evidence span"
    code_fail, output, _ = run_gate(project, max_lost=lost - 1)
    assert code_fail == 1
    assert "FAIL  c30  overall  max_lost" in output


def test_no_text_in_run_files_unless_asked(project: Path) -> None:
    run_gate(project, max_lost=10)
    folder = sorted((project / ".spanlab" / "runs").iterdir())[-1]
    for name in ("run.json", "report.md", "junit.xml"):
        content = (folder / name).read_text("utf-8")
        assert CANARY not in content
        assert "damaged order refund" not in content  # query text too
    result = CliRunner().invoke(
        app, ["eval", "candidates.toml", "--labels", "labels.json", "--include-text"]
    )
    assert result.exit_code == 0, result.output
    folder = sorted((project / ".spanlab" / "runs").iterdir())[-1]
    assert "damaged order refund" in (folder / "run.json").read_text("utf-8")


def test_junit_has_a_case_per_gate_and_per_lost_query(project: Path) -> None:
    # Issue 13: one suite per candidate; broken gates and lost queries fail, the rest pass.
    _, _, run = run_gate(project, max_lost=0)
    root = ET.parse(latest_folder(project) / "junit.xml").getroot()
    suite = root.find("testsuite[@name='c30']")
    assert suite is not None and suite.get("time") is not None
    gates = suite.findall("testcase[@classname='c30.gates']")
    assert [c.get("name") for c in gates] == ["overall.max_lost"]
    gate_failure = gates[0].find("failure")
    message = "" if gate_failure is None else gate_failure.get("message") or ""
    assert re.search(r" lost at (k = \d+|budget [\d,]+), limit 0", message)  # basis named
    expected = sorted(
        qid for qid, q in run.queries.items() if q.candidates["c30"].status == Status.LOST
    )
    queries = suite.findall("testcase[@classname='c30.queries']")
    failed = [c for c in queries if c.find("failure") is not None]
    assert sorted(c.get("name") or "" for c in failed) == expected
    assert len(queries) == sum(q.answerable for q in run.queries.values())
    message = failed[0].find("failure").get("message") or ""  # type: ignore[union-attr]
    parts = ("lost at k = ", " against c60-ov20", "slices ", "pattern ", "cause ", "e1 rank")
    for part in (*parts, "cover"):
        assert part in message
    assert failed[0].find("failure").text is None  # type: ignore[union-attr]
    assert suite.get("failures") == str(1 + len(expected))


def test_bad_input_exits_two_and_writes_no_run(project: Path) -> None:
    (project / "candidates.toml").write_text(
        CANDIDATES.format(max_lost=1).replace("size = 30", "size = 30\noverlap = 30"), "utf-8"
    )
    result = CliRunner().invoke(app, ["gate", "candidates.toml", "--labels", "labels.json"])
    assert result.exit_code == 2
    assert "'c30'" in result.stderr and "overlap" in result.stderr
    assert not (project / ".spanlab" / "runs").exists()


def ruler_under(out: str, text: str, offset: int) -> str:
    """The ruler glyph under `offset`: find the text line holding it, read the line below."""
    start = text.rfind("\n", 0, offset) + 1
    line = text[start : text.find("\n", offset)]
    lines = out.split("\n")
    ruler = lines[lines.index(line) + 1]
    return ruler[offset - start] if offset - start < len(ruler) else " "


def test_show_marks_evidence_and_both_candidates_cuts(project: Path) -> None:
    # Issue 13 redrew the view: text intact, cuts on a ruler line under the text they cut.
    run_gate(project, max_lost=10)
    result = CliRunner().invoke(app, ["show", "latest", "q-0001", "--candidate", "c30"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "If the order arrived damaged, we refund the full price within 14 days." in out
    # baseline cuts at 0, 40, 60, 80, 100...; c30 at 0, 30, 60, 90: 90 is c30's, 80 baseline's
    text = Corpus.from_texts(DOCS).text("refunds.md")
    assert ruler_under(out, text, 90) == "┊"
    assert ruler_under(out, text, 60) == "╫"
    assert ruler_under(out, text, 80) == "▌"
    assert ruler_under(out, text, 50) == "▔"  # inside the evidence 41..80, no cut
    assert "c60-ov20 holds it whole in 40..100; c30 cuts it at 60\n" in out
    # Issue 22: each side's verdict under each rule, on its own line.
    assert "    c30 — chunk: cut (no chunk holds the evidence and the top k do not cover it" in out
    assert " · union: cut (" in out
    assert "e1 " in out and "%" in out  # the ranked lists carry each span's coverage
    assert "top 2 — c60-ov20" in out and "top 2 — c30" in out


def test_chroma_report_preset_runs_offline_in_cl100k_tokens(project: Path) -> None:
    from evaluator.presets import preset_file

    cfile = preset_file("chroma-report")
    specs = {c.name: (c.spec.splitter, c.spec.unit, c.spec.size, c.spec.overlap)
             for c in cfile.candidates}  # fmt: skip
    assert specs == {
        "tokens-250-125": ("tokens", "tokens", 250, 125),
        "recursive-200-0": ("recursive", "tokens", 200, 0),
        "recursive-400-0": ("recursive", "tokens", 400, 0),
        "recursive-800-400": ("recursive", "tokens", 800, 400),
    }
    assert {c.spec.tokenizer for c in cfile.candidates} == {"tiktoken:cl100k_base"}
    assert cfile.settings.k == 5 and cfile.settings.embedding == "minilm"
    result = CliRunner().invoke(
        app, ["eval", "--preset", "chroma-report", "--labels", "labels.json",
              "--retriever", "lexical"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "recursive-800-400" in result.output  # the terminal summary
    folder = sorted((project / ".spanlab" / "runs").iterdir())[-1]
    report = (folder / "report.md").read_text("utf-8")
    assert "Published beside these" in report
    assert "| `recursive-800-400` |" in report


def test_candidates_file_and_preset_together_are_refused(project: Path) -> None:
    (project / "candidates.toml").write_text(CANDIDATES.format(max_lost=1), "utf-8")
    result = CliRunner().invoke(
        app, ["eval", "candidates.toml", "--preset", "chroma-report", "--labels", "labels.json"]
    )
    assert result.exit_code == 2
    assert "not both" in result.stderr


def test_report_breaks_recall_down_by_slice_and_pattern(project: Path) -> None:
    _, _, run = run_gate(project, max_lost=10)
    report = (latest_folder(project) / "report.md").read_text("utf-8")
    cmp = run.comparisons["c30"].breakdowns["slice"]["critical"]
    base = run.candidate("c60-ov20").breakdowns["slice"]["critical"]
    delta = cmp.deltas["evidence_recall@k"]
    assert delta is not None
    lost = cmp.counts.lost
    cell = f"{delta:+.3f} (**{lost}**)" if lost else f"{delta:+.3f} (0)"
    row = f"| critical | 1 (of 1) | {base.metrics['evidence_recall@k']:.3f} | {cell} |"
    assert "## Recall@k by slice" in report and "## Recall@k by boundary pattern" in report
    assert row in report


def test_drafts_without_evidence_are_left_out_and_named(project: Path) -> None:
    corpus = Corpus.read(project / "corpus")
    data = json.loads((project / "labels.json").read_text("utf-8"))
    queries = [Query("q-0009", "an unlabelled draft")]
    from labeler.core.labels.labelset import read

    queries += list(read(project / "labels.json", corpus).queries)
    write_json(to_json(queries, corpus), project / "with-draft.json")
    assert len(data["queries"]) == 4
    (project / "candidates.toml").write_text(CANDIDATES.format(max_lost=10), "utf-8")
    result = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "with-draft.json"])
    assert result.exit_code == 0, result.output
    assert "1 quer(y/ies) without evidence and not marked abstain were left out" in result.output
    run = read_run(latest_folder(project))
    assert run.manifest.skipped_queries == ("q-0009",)
    assert "q-0009" not in run.queries


def test_show_explains_ranks_and_causes(project: Path) -> None:
    _, _, run = run_gate(project, max_lost=10)
    lost = [qid for qid, q in run.queries.items()
            if q.candidates["c30"].status == Status.LOST]  # fmt: skip
    result = CliRunner().invoke(app, ["show", run.id[:15], lost[0]])
    assert result.exit_code == 0, result.output
    assert "evidence e1: " in result.output
    assert "c30 vs c60-ov20 under chunk: lost — " in result.output
    assert "c30 vs c60-ov20 under union: " in result.output
    # Naming the baseline itself shows it alone (it was a traceback, issue 22).
    alone = CliRunner().invoke(app, ["show", "latest", lost[0], "--candidate", "c60-ov20"])
    assert alone.exit_code == 0, alone.output
    assert "(the baseline alone)" in alone.output and "top 2 — c30" not in alone.output
    abstain = CliRunner().invoke(app, ["show", "latest", "q-0004"])
    assert "abstention query" in abstain.output


def test_a_gate_on_a_slice_no_query_has_is_bad_input(project: Path) -> None:
    text = CANDIDATES.format(max_lost=10) + "[gates.slice.critcal]\nmax_lost = 0\n"
    (project / "candidates.toml").write_text(text, "utf-8")
    result = CliRunner().invoke(app, ["gate", "candidates.toml", "--labels", "labels.json"])
    assert result.exit_code == 2
    assert "[gates.slice.critcal]: no labelled query has the slice 'critcal'" in result.stderr
    assert "critical" in result.stderr  # the hint lists the slices that exist


def test_eval_output_off_a_terminal_names_queries_by_id_only(project: Path) -> None:
    (project / "candidates.toml").write_text(CANDIDATES.format(max_lost=10), "utf-8")
    result = CliRunner().invoke(app, ["eval", "candidates.toml", "--labels", "labels.json"])
    assert result.exit_code == 0, result.output
    assert "q-0001" in result.output or "q-0003" in result.output
    for text in ("damaged order refund days", "gift cards refunded", "express shipping cost"):
        assert text not in result.output


def test_show_refuses_a_run_cut_by_other_splitter_code(project: Path) -> None:
    _, _, run = run_gate(project, max_lost=10)
    tampered = tuple(
        dataclasses.replace(c, splitter_fingerprint="0" * 16) if c.name == "c30" else c
        for c in run.candidates
    )
    write_run_file(dataclasses.replace(run, candidates=tampered),
                   latest_folder(project) / "run.json")  # fmt: skip
    result = CliRunner().invoke(app, ["show", "latest", "q-0001", "--candidate", "c30"])
    assert result.exit_code == 2
    assert "candidate 'c30' cuts differently in this spanlab" in result.stderr

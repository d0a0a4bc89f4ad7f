"""What a reviewer needs is in front of them (§17): report.md and the terminal summary show
document hit beside hit, unique evidence, abstention top-1, the costs and latency, and the
breakdowns by document format and evidence length beside slice, pattern and document."""

from __future__ import annotations

import io

from rich.console import Console

from evaluator.pipeline.record import run_file
from evaluator.runs.report import report_md
from evaluator.runs.review_view import breakdown_rows, review_rows
from evaluator.runs.summary import breakdown_summaries, review_summary
from tests.evaluator.runs.conftest import SmallRun


def test_the_review_rows_are_run_jsons_figures(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=False)
    rows = dict(review_rows(run))
    base = run.candidate("c60-ov20")
    hit, doc_hit, unique, abst, tokens, chunks, dup, latency, ann = rows["c60-ov20"]
    assert dup == f"{base.metric('duplicate_pairs@k'):.2f}"
    assert hit == f"{base.metric('hit@k'):.3f}"
    assert doc_hit == f"{base.metric('document_hit@k'):.3f}"
    assert base.metric("unique_evidence@k") == 1.0
    assert unique == "3/3 groups"  # a count shown as a count: 1.0 a query × 3 answerable
    assert base.metric("abstention_top1") is None and abst == "–"  # BM25 is no similarity
    assert tokens == f"{base.metric('prompt_tokens@k'):.0f}"
    assert chunks == f"{base.metric('chunk_count'):.0f}"
    assert " / " in latency and ann == "–"  # no --check-ann on a lexical run


def test_breakdowns_by_format_and_length_count_answerable_queries(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=False)
    # Three answerable queries, all in .md files; spans of 39, 46 and 30 code points.
    assert [(k, n) for k, n, _ in breakdown_rows(run, "format")] == [("md", 3)]
    assert [(k, n) for k, n, _ in breakdown_rows(run, "length")] == [("< 50 ch", 3)]


def test_report_md_shows_evidence_cost_and_every_breakdown(small_run: SmallRun) -> None:
    text = report_md(run_file(small_run.result, include_text=False))
    assert "## Evidence and cost" in text
    assert "| candidate | hit@k (context completeness) | doc hit@k (evidence relevance) |" in text
    assert "latency p50 / p95 ms | `--check-ann` agreement |" in text
    for title in ("slice", "boundary pattern", "document", "document format", "evidence length"):
        assert f"## Recall@k by {title}\n" in text, title
    assert "| md | 3 (of 3) |" in text and "| < 50 ch | 3 (of 3) |" in text


def test_the_terminal_shows_them_in_80_columns(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=False)
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    console.print(review_summary(run))
    for table in breakdown_summaries(run):
        console.print(table)
    text = out.getvalue()
    assert "doc hit" in text and "abst@1" in text and "p50/p95 ms" in text
    assert "ANN" not in text.split("hit@k:")[0]  # the column only with --check-ann
    assert "Recall@k by document format" in text and "Recall@k by evidence length" in text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80

"""Every human-read output names its settings and both match rules (§7, §9), on the small
lexical run: c30 cuts q-0001 and q-0002 (lost under both rules) and splits q-0003 in two
chunks that the top 2 hold together (lost under `chunk` only, a hit under `union`)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from io import StringIO
from pathlib import Path

from rich.console import Console

from evaluator.candidates import parse
from evaluator.pipeline import run_evaluation
from evaluator.pipeline.record import run_file
from evaluator.runs.junit import junit_xml
from evaluator.runs.model import RunFile
from evaluator.runs.report import report_md, skipped_note
from evaluator.runs.summary import print_run
from evaluator.runs.verdict_words import both_rules, loss_scope, settings_line
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query, Status
from tests.evaluator.runs.conftest import CANDIDATES, DOCS, SmallRun, queries


def test_the_settings_line_names_what_the_verdict_depends_on(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=False)
    assert settings_line(run) == (
        "k 2 · depth 10 · match chunk (also union) · coverage ≥ 0.8 · retriever lexical · "
        "candidates candidates.toml sha256:f00 · embedding none (lexical) · "
        # Issue 29: every header names the context budget and what decides the verdict.
        "budget 27 tokens (default) · decides budget (sizes differ 96%)"
    )


def test_a_loss_says_whether_it_holds_under_both_rules(small_run: SmallRun) -> None:
    run = run_file(small_run.result, include_text=False)
    assert loss_scope(run, "c30", "q-0001") == "lost under both rules"
    assert loss_scope(run, "c30", "q-0003") == "lost under chunk only"
    # Hand-worked: union matches q-0003 only, so recall is 1/3 there, 0 under chunk.
    assert both_rules(run, "c30", "evidence_recall@k") == (
        "0.000 · 0.333 with split evidence counted"
    )


def test_report_md_shows_both_rules_and_the_settings(small_run: SmallRun) -> None:
    report = report_md(run_file(small_run.result, include_text=False))
    assert "gates decided under match `chunk`" in report
    assert "match `chunk (also union)`" in report and "coverage `≥ 0.8`" in report
    assert "candidates `candidates.toml sha256:f00`" in report
    assert "| `c30` | 0.000 · 0.333 | 0.000 · 0.333 | 0.000 · 1.000 | 3 · 2 |" in report
    assert "- `q-0003` (other, billing, critical) — split · lost under chunk only" in report
    assert "- `q-0001` (condition-consequence, critical) — cut · lost under both rules" in report
    assert "**Lost at k = 2 (3)**" in report and "**Gained at k = 2 (0)**" in report


def test_the_terminal_summary_shows_both_rules(small_run: SmallRun, tmp_path: Path) -> None:
    out = StringIO()
    run = run_file(small_run.result, include_text=False)
    print_run(run, tmp_path, Console(file=out, width=100, color_system=None))
    text = out.getvalue()
    assert "k 2 · depth 10 · match chunk (also union)" in text
    # Issue 40: the tables say their basis; the small run decides at budget
    assert "Candidates against the baseline (*) at k — match chunk, gating at budget 27" in text
    assert "Under match union (split evidence counted), at k = 2, not gating" in text
    assert "q-0003 split       chunk only" in text
    assert "q-0001 cut         both rules" in text
    assert "  lost at k = 2 (3)" in text and "  gained at k = 2 (0)" in text  # basis named


def test_junit_names_the_loss_scope_and_split_coverage(small_run: SmallRun) -> None:
    xml = junit_xml(run_file(small_run.result, include_text=False))
    assert 'failures="5"' in xml  # two gates and three lost queries: c30 fails its gates
    assert (
        "cause split (every part was retrieved, split across chunks) · lost under chunk only" in xml
    )


def test_a_junit_lost_case_names_its_basis(small_run: SmallRun) -> None:
    """The lost cases are the queries lost at k; with the gates at budget they must not
    read as the gates' count (issue 40: every figure names its basis)."""
    run = run_file(small_run.result, include_text=False)
    root = ET.fromstring(junit_xml(run))
    said = [f.get("message") or "" for f in root.iter("failure") if f.get("type") == "lost"]
    assert len(said) == 3
    assert all(m.startswith("lost at k = 2 against c60-ov20: ") for m in said)


def test_a_candidate_that_passes_its_gates_has_no_failing_junit_case(small_run: SmallRun) -> None:
    run = replace(run_file(small_run.result, include_text=False), gates=())
    root = ET.fromstring(junit_xml(run))
    assert root.get("failures") == "0"
    outs = [e.text or "" for e in root.iter("system-out")]
    assert len(outs) == 3 and all("lost at k = 2 against c60-ov20" in o for o in outs)
    assert all(o.endswith("(the candidate passes its gates)") for o in outs)


def test_an_orphaned_query_is_named_orphaned_not_a_draft() -> None:
    corpus = Corpus.from_texts(DOCS)
    cfile = parse(CANDIDATES, file="candidates.toml", digest="sha256:f00")
    gone = Query("q-0009", "a reviewed query whose span was orphaned", status=Status.REVIEWED)
    result = run_evaluation(cfile, corpus, [*queries(corpus), gone],
                            label_corpus_hash=corpus.hash, label_set_hash="sha256:l")  # fmt: skip
    run = run_file(result, include_text=False)
    assert run.manifest.skipped_queries == ("q-0005", "q-0009")
    assert run.manifest.orphaned_queries == ("q-0009",)
    note = skipped_note(run)
    assert note is not None
    assert "(drafts not yet labelled): q-0005;" in note
    assert "evidence was orphaned by a corpus change" in note and note.endswith("q-0009")
    assert RunFile.from_json(run.to_json(), file="run.json").manifest.orphaned_queries == (
        "q-0009",
    )


def test_breakdown_tables_count_the_answerable_queries_beside_all(small_run: SmallRun) -> None:
    report = report_md(run_file(small_run.result, include_text=False))
    # `other` holds q-0002, q-0003 and the abstention query q-0004: two answerable of three.
    assert "| other | 2 (of 3) | 1.000 | -1.000 (**2**) |" in report
    assert "| critical | 2 (of 2) |" in report

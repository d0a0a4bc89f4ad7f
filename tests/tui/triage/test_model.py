"""What triage shows, read from run.json: order of losses, filters, deltas, statistics, verdicts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from evaluator.chunk import Chunk
from evaluator.metrics.compare import Comparison, GroupComparison, Significance, StatusCounts
from evaluator.metrics.registry import (
    CHROMA_PRECISION,
    CHROMA_RECALL,
    COVERAGE,
    FIRST_RANKS,
    SUMMARY,
    shown,
)
from evaluator.runs.model import read_run
from evaluator.runs.model_parts import GateRecord
from evaluator.runs.report import COLUMNS
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import SpanlabError
from labeler.core.values import Boundary, Span
from labeler.tui.triage.change_filter import ChangeFilter
from labeler.tui.triage.detail import RankedRow, check_corpus, fate, query_detail
from labeler.tui.triage.model import (
    MEASURES,
    ChangeRow,
    MetricLine,
    RunView,
    significance_lines,
)
from tests.tui.triage.conftest import DOC_A, LATEST, Project


def run_view(folder: Path) -> RunView:
    return RunView(read_run(folder))


def row(query: str, status: str = "lost", cause: str | None = "cut", delta: float = -1.0,
        critical: bool = False, boundary: str = "other", slices: tuple[str, ...] = (),
        docs: tuple[str, ...] = ("a.md",), text: str = "") -> ChangeRow:  # fmt: skip
    return ChangeRow(query, status, cause, delta, boundary, slices, docs, critical, text)


def test_losses_come_critical_first_then_cut_and_disappeared_then_crowded() -> None:
    rows = [
        row("g-small", "gained", None, 0.5),
        row("crowded-critical", cause="crowded", critical=True),
        row("crowded", cause="crowded"),
        row("cut-half", delta=-0.5),
        row("disappeared", cause="disappeared"),
        row("g-big", "gained", None, 1.0),
        row("cut-whole"),
    ]
    assert [r.query for r in sorted(rows, key=ChangeRow.sort_key)] == [
        "crowded-critical", "cut-whole", "cut-half", "disappeared", "crowded", "g-big", "g-small",
    ]  # fmt: skip


def test_the_run_lists_its_changes_in_triage_order(project: Project) -> None:
    run = run_view(project.runs / LATEST)
    assert (run.baseline, run.others, run.k, run.depth) == ("c40-ov20", ["c40"], 1, 3)
    assert run.critical_slices == frozenset({"critical"})
    assert run.changes("c40") == [
        ChangeRow("q-0002", "lost", "crowded", -1.0, "list-intro-item", ("critical",),
                  ("a.md",), True),
        ChangeRow("q-0001", "lost", "cut", -1.0, "heading-paragraph", ("billing",),
                  ("a.md",), False),
        ChangeRow("q-0003", "gained", None, 1.0, "control", ("billing",), ("a.md",), False),
    ]  # fmt: skip


def test_a_gated_slice_is_not_critical_by_being_gated(project: Project) -> None:
    # Issue 13: the `!` marked every gated slice's queries (`tables`); only `critical` is.
    run = read_run(project.runs / LATEST)
    billing = GateRecord("c40", "slice:billing", "max_lost", 0.0, 0.0, True)
    data = dataclasses.replace(run, gates=(*run.gates, billing))
    assert RunView(data).critical_slices == frozenset({"critical"})
    assert [r.critical for r in RunView(data).changes("c40")] == [True, False, False]


def test_filter_by_slice_pattern_document_and_words() -> None:
    rows = [
        row("q-1", slices=("critical",), boundary="control", docs=("policies/refunds.md",)),
        row("q-2", cause="crowded", boundary="table-header-row", docs=("api/reference.md",)),
        row("q-3", "gained", None, 1.0, slices=("critical", "tables")),
    ]
    assert ChangeFilter.parse("slice:critical").apply(rows) == [rows[0], rows[2]]
    assert ChangeFilter.parse("pattern:table").pattern is Boundary.TABLE_HEADER_ROW
    assert ChangeFilter.parse("p:contr").apply(rows) == [rows[0]]
    assert ChangeFilter.parse("doc:refunds").apply(rows) == [rows[0]]
    assert ChangeFilter.parse("lost crowded").apply(rows) == [rows[1]]
    assert ChangeFilter.parse("sl:critical gained").apply(rows) == [rows[2]]


def test_a_bad_filter_names_what_is_allowed() -> None:
    with pytest.raises(SpanlabError, match="unknown filter 'status'"):
        ChangeFilter.parse("status:draft")
    with pytest.raises(SpanlabError, match="pattern:co matches 3 of"):
        ChangeFilter.parse("pattern:co")


def test_metric_lines_say_which_way_is_better(project: Project) -> None:
    lines = {m.name: m for m in run_view(project.runs / LATEST).metric_lines("c40")}
    recall = lines["evidence_recall@k"]
    assert (recall.text(recall.baseline), recall.text(recall.candidate)) == ("0.667", "0.333")
    assert (recall.delta_text(), recall.better) == ("-0.333", False)
    chunks = lines["chunk_count"]
    assert (chunks.baseline, chunks.candidate, chunks.delta_text(), chunks.better) == (
        8,
        5,
        "-3",
        None,
    )
    fewer_duplicates = MetricLine(MEASURES[6], 0.5, 0.25)
    assert (fewer_duplicates.name, fewer_duplicates.better) == ("duplicate_pairs@k", True)
    assert MetricLine(MEASURES[0], None, 0.5).delta_text() == "–"


def test_significance_in_words_small_and_decisive(project: Project) -> None:
    run = run_view(project.runs / LATEST)
    assert significance_lines(run.comparison("c40")) == [
        "Δ recall@k -0.333, 95% CI [-1.000, +1.000]",
        "  paired bootstrap, 10000 resamples, seed 0",
        "1 gained / 2 lost: too small to be decisive (3 answerable queries < 30)",
    ]
    decisive = Comparison(
        "base", "cand", {}, GroupComparison(10, StatusCounts(gained=1, lost=9), {}), {},
        Significance(10, True, None, 22 / 1024, None),
    )  # fmt: skip
    # 2 · P(X ≤ 1) for X ~ Binomial(10, ½) = 2 · 11/1024
    assert significance_lines(decisive) == ["McNemar exact p = 0.0215 (1 gained / 9 lost)"]


def test_the_cut_query_in_detail(project: Project) -> None:
    run = run_view(project.runs / LATEST)
    detail = query_detail(run, "q-0001", "c40", project.corpus, {"q-0001": "the words"})
    assert (detail.status, detail.cause, detail.text) == ("lost", "cut", "the words")
    assert detail.spans == (Span.from_text(DOC_A, "a.md", 20, 59),)
    (view,) = detail.views
    assert (view.start, view.end) == (0, 160)
    assert view.baseline_cuts == (0, 20, 40, 60, 80, 100, 120, 140, 160)
    assert view.candidate_cuts == (0, 40, 80, 120, 160)
    base, cand = detail.baseline, detail.candidate
    assert base.top == (RankedRow(1, 1.0, base.top[0].chunk, (1,), ()),)
    assert (base.top[0].chunk.start, base.top[0].chunk.end) == (20, 60)
    assert [(f.verdict, f.rank, f.share) for f in base.fates] == [("hit", 1, 1.0)]
    assert (cand.top[0].chunk.start, cand.top[0].matches, cand.top[0].partial) == (
        0,
        (),
        ((1, 20 / 39),),
    )
    (cut,) = cand.fates
    assert (cut.verdict, cut.rank, cut.share) == ("cut", None, 20 / 39)
    assert cut.chunk is not None and (cut.chunk.start, cut.chunk.end) == (0, 40)


def test_the_crowded_query_shows_its_first_match_below_k(project: Project) -> None:
    run = run_view(project.runs / LATEST)
    cand = query_detail(run, "q-0002", "c40", project.corpus).candidate
    assert [(r.rank, r.chunk.doc, r.chunk.start, r.matches) for r in cand.top] == [
        (1, "b.md", 0, ())
    ]
    assert [(r.rank, r.chunk.start, r.chunk.end, r.matches) for r in cand.beyond] == [
        (2, 80, 120, (1,))
    ]
    assert [(f.verdict, f.rank) for f in cand.fates] == [("crowded", 2)]


def test_a_span_held_by_a_chunk_ranked_below_depth_disappeared() -> None:
    span = Span.from_text(DOC_A, "a.md", 100, 119)
    index = [Chunk("x", "a.md", 80, 120), Chunk("y", "a.md", 110, 150)]
    gone = fate(span, None, [], index, k=1, threshold=0.8)
    assert (gone.verdict, gone.chunk, gone.share) == ("disappeared", index[0], 1.0)
    cut = fate(span, None, [], [Chunk("z", "a.md", 110, 150)], k=1, threshold=0.8)
    assert (cut.verdict, cut.share) == ("cut", 9 / 19)


def test_a_run_on_another_corpus_cannot_be_drawn_but_its_ranked_lists_can(
    project: Project,
) -> None:
    run = run_view(project.runs / LATEST)
    other = Corpus.from_texts({"a.md": DOC_A.upper(), "b.md": "x"})
    with pytest.raises(SpanlabError, match="was made on corpus sha256:"):
        check_corpus(run, other)
    # Issue 13: the ranked lists need offsets, not text, so they are shown all the same.
    detail = query_detail(run, "q-0001", "c40", other)
    same = query_detail(run, "q-0001", "c40", project.corpus)
    assert detail.note is not None and "was made on corpus sha256:" in detail.note
    assert (detail.views, same.note) == ((), None)
    assert [(s.doc, s.start, s.end) for s in detail.spans] == [("a.md", 20, 59)]
    for changed, drawn in ((detail.baseline, same.baseline), (detail.candidate, same.candidate)):
        assert (changed.top, changed.beyond) == (drawn.top, drawn.beyond)
        assert [f.verdict for f in changed.fates] == [f.verdict for f in drawn.fates]


def test_the_list_carries_the_store_text_or_the_runs_own(project: Project) -> None:
    file = read_run(project.runs / LATEST)
    texts = {"q-0002": "where is my parcel", "q-0001": "refund in full"}
    rows = {r.query: r.text for r in RunView(file).changes("c40", texts)}
    assert rows == {"q-0002": "where is my parcel", "q-0001": "refund in full", "q-0003": ""}
    own = dataclasses.replace(file.queries["q-0003"], text="the run's own text")
    data = dataclasses.replace(file, queries={**file.queries, "q-0003": own})
    assert {r.query: r.text for r in RunView(data).changes("c40")}["q-0003"] == "the run's own text"


def test_words_find_the_query_text() -> None:
    rows = [row("q-0001", text="refund in full"), row("q-0002", text="Where is my Parcel?")]
    assert ChangeFilter.parse("parcel").apply(rows) == [rows[1]]
    assert ChangeFilter.parse("q-0001").apply(rows) == [rows[0]]
    assert ChangeFilter.parse("parcel refund").apply(rows) == []


def test_every_status_and_cause_can_be_browsed() -> None:
    rows = [
        row("lost-cut"),
        row("lost-split", cause="split"),
        row("gained", "gained", None, 1.0),
        row("miss", "unchanged-miss", None, 0.0),
        row("hit", "unchanged-hit", None, 0.0),
    ]
    ordered = sorted(rows, key=ChangeRow.sort_key)
    assert [r.query for r in ordered] == ["lost-cut", "lost-split", "gained", "miss", "hit"]

    def names(line: str) -> list[str]:
        return [r.query for r in ChangeFilter.parse(line).apply(ordered)]

    assert names("") == ["lost-cut", "lost-split", "gained"]
    assert names("both-miss") == ["miss"]
    assert names("both-hit") == ["hit"]
    assert names("both-miss both-hit") == ["miss", "hit"]
    assert names("all") == [r.query for r in ordered]
    assert names("split") == ["lost-split"]
    assert names("cut") == ["lost-cut"]
    assert names("crowded") == names("disappeared") == []
    assert names("gained lost") == ["lost-cut", "lost-split", "gained"]


def test_a_filter_naming_what_no_query_has_says_so() -> None:
    rows = [row("q-1", slices=("critical",)), row("q-2", slices=("tables",))]
    assert ChangeFilter.parse("slice:nope").unknown(rows) == (
        "no query has slice:nope (slices: critical, tables)"
    )
    assert ChangeFilter.parse("doc:zzz").unknown(rows) == (
        "no query has evidence in a document matching doc:zzz"
    )
    assert ChangeFilter.parse("slice:tables doc:a.md").unknown(rows) is None


def test_the_summary_shows_every_measure_the_registry_marks_for_it(project: Project) -> None:
    names = [m.name for m in run_view(project.runs / LATEST).metric_lines("c40")]
    assert names == list(SUMMARY)
    labels = [shown(n).label for n in names]
    assert {"Chroma recall", "Chroma precision"} <= set(labels)  # report.md: C-recall, C-precision
    assert set(COLUMNS) <= set(names)  # every column report.md has
    assert CHROMA_RECALL in names and CHROMA_PRECISION in names
    assert FIRST_RANKS not in names and COVERAGE not in names and "indexing_seconds" not in names

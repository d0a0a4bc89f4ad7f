"""Triage's span verdicts under both match rules (§7, issue 22), on hand-placed chunks.

Span a.md 100..120 (20 characters), k = 2, threshold 0.8. P1 [90,110) and P2 [110,130)
hold half each; W [95,125) holds it whole. Every verdict names a single chunk, never the
rank at which a union of pieces completes.
"""

from __future__ import annotations

from evaluator.chunk import Chunk
from evaluator.metrics.causes import Cause
from evaluator.runs.model_queries import RankedEntry
from labeler.core.values import Span
from labeler.tui.triage.detail import RankedRow, fate, ranked_row
from labeler.tui.triage.render import verdict_content
from tests.tui.triage.conftest import DOC_A

SPAN = Span.from_text(DOC_A, "a.md", 100, 120)
P1, P2 = Chunk("p1", "a.md", 90, 110), Chunk("p2", "a.md", 110, 130)
W, X = Chunk("w", "a.md", 95, 125), Chunk("x", "a.md", 0, 40)


def rows(*chunks: Chunk) -> list[RankedRow]:
    return [
        ranked_row(i, RankedEntry(c.id, c.doc, c.start, c.end, 1.0 - i / 10), [SPAN], 0.8)
        for i, c in enumerate(chunks, 1)
    ]


def test_pieces_in_the_top_k_are_split_under_chunk_and_a_hit_under_union() -> None:
    ranked, index = rows(P1, P2), [P1, P2]
    chunk_rule = fate(SPAN, None, ranked, index, 2, 0.8, coverage=1.0)
    union_rule = fate(SPAN, None, ranked, index, 2, 0.8, coverage=1.0, match="union")
    assert (chunk_rule.verdict, chunk_rule.rank) == ("split", None)
    assert (union_rule.verdict, union_rule.rank) == ("hit", None)
    assert verdict_content(union_rule, 2, 0.8).plain == (
        "hit in pieces: the top k=2 cover it together (100%)"
    )


def test_a_split_below_100_percent_says_its_coverage() -> None:
    split = fate(SPAN, None, rows(P1, P2), [P1, P2], 2, 0.8, Cause.SPLIT, 0.85, recorded=True)
    assert verdict_content(split, 2, 0.8).plain == (
        "SPLIT retrieved in pieces: the top k cover 85% of it together; no one chunk holds ≥80%"
    )


def test_under_union_a_span_no_chunk_holds_is_cut_and_names_no_first_match() -> None:
    # The pieces complete at rank 3 (> k): a union rank, but no chunk holds the span.
    ranked, index = rows(P1, X, P2), [P1, X, P2]
    cut = fate(SPAN, None, ranked, index, 2, 0.8, coverage=0.5, match="union")
    assert (cut.verdict, cut.rank, cut.chunk) == ("cut", None, P1)
    assert (
        verdict_content(cut, 2, 0.8).plain
        == "CUT no chunk holds ≥80% of it (best 90..110 covers 50%)"
    )


def test_under_union_crowded_names_the_one_chunk_that_holds_it() -> None:
    ranked, index = rows(X, P1, W), [X, P1, W]
    crowded = fate(SPAN, None, ranked, index, 2, 0.8, coverage=0.5, match="union")
    assert (crowded.verdict, crowded.rank, crowded.chunk) == ("crowded", 3, W)


def test_the_queries_list_marks_a_loss_under_the_declared_rule_only() -> None:
    from labeler.tui.triage.model import ChangeRow
    from labeler.tui.triage.widgets import change_line

    row = ChangeRow("q-0002", "lost", "split", -1.0, "other", (), ("a.md",), False, "", True)
    assert change_line(row).plain.startswith("▼ q-0002    split*")
    both = ChangeRow("q-0001", "lost", "cut", -1.0, "other", (), ("a.md",), False, "", False)
    assert change_line(both).plain.startswith("▼ q-0001    cut ")

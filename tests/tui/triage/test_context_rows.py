"""Triage's ranked rows for a candidate with context units (§18): a row matches on what was
sent for its chunk, as every measure does, and keeps the retrieved chunk to draw beside it."""

from __future__ import annotations

from evaluator.runs.model_queries import RankedEntry
from labeler.core.values import Span
from labeler.tui.triage.detail import ranked_row


def test_triage_matches_on_what_was_sent_and_shows_both() -> None:
    span = Span.from_text("x" * 100, "d", 40, 60)
    child = RankedEntry("c", "d", 30, 50, 0.5)
    parent = RankedEntry("p", "d", 0, 100, 0.5)
    row = ranked_row(1, child, [span], 0.8, parent)
    assert (row.chunk.start, row.chunk.end, row.matches) == (0, 100, (1,))
    assert row.retrieved is not None and (row.retrieved.start, row.retrieved.end) == (30, 50)
    alone = ranked_row(1, child, [span], 0.8)
    assert alone.matches == () and alone.partial == ((1, 0.5),) and alone.retrieved is None

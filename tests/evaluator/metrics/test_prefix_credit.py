"""Evidence in a prefix is evidence (§17): a chunk that carries a table header as its prefix
holds a span on that header, for matching, coverage, causes and the oracle.

The corpus is one small markdown document cut by the real markdown splitter at size 60:
chunk 1 is 0..59 (heading, header, delimiter, first row), chunk 2 is 59..91 (rows 2-3) with
the breadcrumb (0..9) and the header and delimiter (11..43) as its prefix.
"""

from __future__ import annotations

from dataclasses import replace

from evaluator.chunk import Chunk
from evaluator.chunking import SplitterSpec, split_text
from evaluator.metrics import MetricSettings
from evaluator.metrics.causes import Cause
from evaluator.retrieval.base import Ranked
from labeler.core.values import Boundary, Query, Span
from tests.evaluator.metrics.helpers import view

TEXT = (
    "## Prices\n\n"
    "| item | cost |\n"
    "|------|------|\n"
    "| tea  | 2    |\n"
    "| cake | 4    |\n"
    "| pie  | 5    |\n"
)
DOC = "prices.md"
K1 = MetricSettings(k=1, depth=4, coverage_threshold=0.8)
UNION = MetricSettings(k=1, depth=4, coverage_threshold=0.8, match="union")


def chunks() -> tuple[Chunk, Chunk]:
    first, second = split_text(SplitterSpec("markdown", 60, 0), TEXT)
    return (
        Chunk("c1", DOC, first.start, first.end, first.prefix, first.prefix_source),
        Chunk("c2", DOC, second.start, second.end, second.prefix, second.prefix_source),
    )


def query(start: int, end: int) -> Query:
    span = Span.from_text(TEXT, DOC, start, end)
    return Query("qh", "what does pie cost", False, Boundary.TABLE_HEADER_ROW, evidence=(span,))


HEADER = query(11, 26)  # "| item | cost |": the header row, in c1 and in c2's prefix


def test_the_splitter_records_where_the_prefix_came_from() -> None:
    _, second = chunks()
    assert (second.start, second.end) == (59, 91)
    assert second.prefix_source == ((0, 9), (11, 43))
    assert second.prefix == "## Prices\n" + TEXT[11:43]


def test_a_span_in_the_prefix_is_matched_by_the_chunk_that_carries_it() -> None:
    first, second = chunks()
    v = view(HEADER, [Ranked(second, 0.9), Ranked(first, 0.8)], index=(first, second), settings=K1)
    assert v.first_ranks == (1,)
    assert v.matched_in_k == (True,)
    assert v.coverage_in_k == (1.0,)
    assert v.span_causes == (None,)
    assert v.held == (True,)


def test_without_its_source_offsets_the_same_chunk_leaves_the_span_crowded() -> None:
    first, second = chunks()
    bare = replace(second, prefix_source=())
    v = view(HEADER, [Ranked(bare, 0.9), Ranked(first, 0.8)], index=(first, bare), settings=K1)
    assert v.first_ranks == (2,)
    assert v.coverage_in_k == (0.0,)
    assert v.span_causes == (Cause.CROWDED,)


def test_prefix_and_text_cover_a_span_together_under_union() -> None:
    # 27..75: delimiter (27..43, in the prefix), row 1 (43..59, in neither), row 2 (59..75).
    first, second = chunks()
    across = query(27, 75)
    v = view(
        across, [Ranked(second, 0.9), Ranked(first, 0.8)], index=(first, second), settings=UNION
    )
    assert v.coverage_in_k == (32 / 48,)
    assert v.first_ranks == (2,)  # c1 adds 43..59: 48 / 48
    # No single chunk holds it (each 32 / 48) and the top 1 covers 2/3: a boundary cut it.
    assert v.span_causes == (Cause.CUT,)


def test_a_chunk_met_only_by_its_prefix_is_found_by_the_index() -> None:
    first, second = chunks()
    v = view(query(30, 40), [Ranked(second, 0.9)], index=(second, first), settings=K1)
    assert [c.id for c in v.index.touching(DOC, 30, 40)] == ["c1", "c2"]
    assert v.matchable == (True,)


def test_precision_omega_keeps_to_the_chunks_own_ranges() -> None:
    # Chroma's reference has no prefixes: its research metrics divide chunk ranges only.
    first, second = chunks()
    bare = replace(second, prefix_source=())
    with_source = view(HEADER, [Ranked(second, 0.9)], index=(first, second), settings=K1)
    without = view(HEADER, [Ranked(bare, 0.9)], index=(first, bare), settings=K1)
    assert with_source.omega_overlap == without.omega_overlap
    assert with_source.retrieved_overlap == without.retrieved_overlap

"""A ranked file (shadow-traffic JSONL or a TREC run) is read whole and refused at its
first bad line, naming file and line, before anything is measured (§19)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluator.chunk import Chunk
from evaluator.retrieval.base import QueryInput
from evaluator.retrieval.items import ChunkLookup
from evaluator.retrieval.ranked import RankedRetriever, read_rankings
from labeler.core.errors import ConfigError

TEXTS = {"a.md": "Refunds take 14 days. Refunds take 14 days.", "b.md": "Refund policy"}
CHUNKS = [Chunk("c1", "a.md", 0, 22), Chunk("c2", "a.md", 22, 43), Chunk("c3", "b.md", 0, 13)]
QUERIES = [QueryInput("q-1", "how long do refunds take?"), QueryInput("q-2", "the policy?")]
GOOD = [
    {"query": "q-1", "ranked": [{"doc": "a.md", "start": 22, "end": 43}, {"id": "c3"}]},
    {"query": "the policy?", "ranked": [{"doc": "b.md", "text": "Refund policy", "score": 7}]},
]


def _read(tmp_path: Path, lines: list[str], depth: int = 2) -> RankedRetriever:
    path = tmp_path / "shadow.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lookup = ChunkLookup(CHUNKS, TEXTS)
    return RankedRetriever(read_rankings(str(path), lookup, QUERIES, depth))


def test_every_item_shape_is_placed_on_the_candidate_s_chunks(tmp_path: Path) -> None:
    retriever = _read(tmp_path, [json.dumps(line) for line in GOOD])
    one, two = retriever.search(QUERIES, depth=2)
    assert [(r.chunk.id, r.score) for r in one] == [("c2", 2.0), ("c3", 1.0)]  # n - rank + 1
    assert [(r.chunk.id, r.score) for r in two] == [("c3", 7.0)]
    assert retriever.rankings.missing == 0


def test_a_trec_run_is_ranked_by_its_rank_column(tmp_path: Path) -> None:
    lines = ["q-1 Q0 c3 2 5 team", "q-1 Q0 c1 1 9 team", "q-2 Q0 c3 1 3.5 team"]
    one, two = _read(tmp_path, lines).search(QUERIES, depth=2)
    assert [(r.chunk.id, r.score) for r in one] == [("c1", 9.0), ("c3", 5.0)]
    assert [(r.chunk.id, r.score) for r in two] == [("c3", 3.5)]


FIRST = json.dumps(GOOD[1])  # q-2, by its text; the bad lines rank q-1
CASES = [
    ('{"query": "q-9", "ranked": []}', "query 'q-9' is not a query of the label set"),
    ('{"query": "q-1", "ranked": [{"doc": "a.md", "start": 30, "end": 99}]}',
     "offsets 30:99 lie outside document 'a.md' (43)"),
    ('{"query": "q-1", "ranked": [{"doc": "a.md", "text": "Refunds take"}]}',
     "the item's text occurs more than once (at 0 and 22) in 'a.md'"),
    ('{"query": "q-1", "ranked": [{"doc": "a.md", "text": "refund window"}]}',
     "the item's text is not in document 'a.md'"),
    ('{"query": "q-1", "ranked": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}]}',
     "3 items, more than the run's depth (2)"),
    ('{"query": "q-1", "ranked": [{"doc": "a.md", "start": 0, "end": 21}]}',
     "a.md[0:21] is not a chunk of this candidate"),
    ('{"query": "q-1", "ranked": [{"doc": "z.md", "start": 0, "end": 1}]}',
     "doc 'z.md' is not a document of the corpus"),
    ('{"query": "q-1", "ranked": [{"id": "nope"}]}', "id 'nope' is not a chunk"),
    ('{"query": "q-1", "ranked": [{"id": "c1", "score": "high"}]}',
     "item 1's score must be a finite number"),
    ('{"query": "q-1", "ranked": [{"doc": "a.md", "start": true, "end": 22}]}',
     "an item needs 'start' and 'end' (whole numbers), or 'text'"),
    ('{"query": "q-1", "ranked": {"id": "c1"}}', "'ranked' must be a list of items"),
    ('{"query": "q-1", "ranked": [["c1"]]}', "a ranked item must be an object"),
    ('["q-1"]', "each line must be a JSON object"),
    ('{"query": "q-1", "ranked": [', "not JSON"),
    ('{"query": "q-1", "ranked": [{"id": "c1", "score": NaN}]}', "NaN is not a number"),
    ('{"query": "q-2", "ranked": []}', "query q-2 is ranked again (first on line 1)"),
    ('{"query": "q-1", "ranked": [{"id": "c1"}, {"doc": "a.md", "start": 0, "end": 22}]}',
     "item 2 is chunk c1 again (first as item 1)"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "words"), CASES, ids=[w for _, w in CASES])
def test_a_bad_line_is_refused_naming_file_and_line(tmp_path: Path, line: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _read(tmp_path, [FIRST, line])
    assert words in caught.value.message
    assert caught.value.file == str(tmp_path / "shadow.jsonl")
    assert caught.value.line == 2


TREC_CASES = [
    ("q-9 Q0 c1 1 1 t", "query 'q-9' is not a query of the label set"),
    ("q-1 Q0 c9 1 1 t", "id 'c9' is not a chunk of this candidate"),
    ("q-1 Q0 c1 one 1 t", "the rank column must be a whole number, got 'one'"),
    ("q-1 Q0 c1 \u00b2 1 t", "the rank column must be a whole number, got '\u00b2'"),
    ("q-1 Q0 c1 \u0663 1 t", "the rank column must be a whole number, got '\u0663'"),
    ("q-1 Q0 c1 " + "7" * 5000 + " 1 t", "the rank column holds 5,000 digits (at most 9)"),
    ("q-2 Q0 c3 2 1 t", "query q-2 ranks chunk c3 again (first on line 1)"),
    ("q-1 Q0 c1 1 nan t", "the score column must be a finite number"),
    ("q-1 Q0 c1 1 1", "a TREC run line is 'qid Q0 chunk_id rank score tag'"),
]


@pytest.mark.parametrize(("line", "words"), TREC_CASES, ids=[w for _, w in TREC_CASES])
def test_a_bad_trec_line_is_refused_naming_file_and_line(
    tmp_path: Path, line: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _read(tmp_path, ["q-2 Q0 c3 1 1 t", line])
    assert words in caught.value.message and caught.value.line == 2


def test_a_trec_query_deeper_than_the_run_is_refused_at_the_extra_line(tmp_path: Path) -> None:
    lines = ["q-1 Q0 c1 1 3 t", "q-1 Q0 c2 2 2 t", "q-1 Q0 c3 3 1 t"]
    with pytest.raises(ConfigError) as caught:
        _read(tmp_path, lines, depth=2)
    assert "query q-1 has more items than the run's depth (2)" in caught.value.message
    assert caught.value.line == 3


def test_an_empty_or_unreadable_file_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ranks no query"):
        _read(tmp_path, [""])
    with pytest.raises(ConfigError, match="cannot read ranked file") as caught:
        read_rankings(str(tmp_path / "none.jsonl"), ChunkLookup(CHUNKS, TEXTS), QUERIES, 2)
    assert caught.value.file == str(tmp_path / "none.jsonl")


def _skipping(tmp_path: Path, lines: list[str], depth: int = 2) -> RankedRetriever:
    path = tmp_path / "shadow.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    lookup = ChunkLookup(CHUNKS, TEXTS)
    return RankedRetriever(read_rankings(str(path), lookup, QUERIES, depth, skip_bad=True))


@pytest.mark.parametrize(("line", "words"), CASES, ids=[w for _, w in CASES])
def test_with_skip_bad_each_bad_line_is_skipped_counted_and_named(
    tmp_path: Path, line: str, words: str
) -> None:
    rankings = _skipping(tmp_path, [FIRST, line]).rankings
    assert (rankings.skipped, len(rankings.named)) == (1, 1)
    assert words in rankings.named[0].message
    assert rankings.named[0].line == 2 and rankings.named[0].file == str(tmp_path / "shadow.jsonl")
    assert [r.chunk.id for r in rankings.lists["q-2"]] == ["c3"]  # the good line still counts
    assert "q-1" not in rankings.lists and rankings.missing == 1  # its query goes unranked


@pytest.mark.parametrize(("line", "words"), TREC_CASES, ids=[w for _, w in TREC_CASES])
def test_with_skip_bad_a_bad_trec_line_leaves_out_one_item(
    tmp_path: Path, line: str, words: str
) -> None:
    rankings = _skipping(tmp_path, ["q-2 Q0 c3 1 1 t", line, "q-2 Q0 c1 2 0.5 t"]).rankings
    assert rankings.skipped == 1 and rankings.named[0].line == 2
    assert words in rankings.named[0].message
    assert [r.chunk.id for r in rankings.lists["q-2"]] == ["c3", "c1"]


def test_with_skip_bad_the_item_past_the_depth_is_the_one_left_out(tmp_path: Path) -> None:
    lines = ["q-1 Q0 c1 1 3 t", "q-1 Q0 c2 2 2 t", "q-1 Q0 c3 3 1 t"]
    rankings = _skipping(tmp_path, lines).rankings
    assert [r.chunk.id for r in rankings.lists["q-1"]] == ["c1", "c2"]
    assert rankings.skipped == 1 and rankings.named[0].line == 3


def test_a_skipped_line_does_not_take_its_query(tmp_path: Path) -> None:
    bad = '{"query": "q-1", "ranked": [{"id": "nope"}]}'
    rankings = _skipping(tmp_path, [bad, json.dumps(GOOD[0])]).rankings
    assert [r.chunk.id for r in rankings.lists["q-1"]] == ["c2", "c3"]  # not "ranked again"
    assert rankings.skipped == 1 and rankings.missing == 1


def test_skipping_names_the_first_twenty_and_counts_every_one(tmp_path: Path) -> None:
    bad = [f'{{"query": "q-{n}", "ranked": []}}' for n in range(10, 35)]
    rankings = _skipping(tmp_path, [FIRST, *bad]).rankings
    assert rankings.skipped == 25 and len(rankings.named) == 20
    assert [e.line for e in rankings.named] == list(range(2, 22))


def test_a_file_of_bad_lines_alone_still_ranks_no_query(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        _skipping(tmp_path, ['{"query": "q-9", "ranked": []}', "q-1 Q0 c1 1 1 t"])
    assert caught.value.message == "the ranked file ranks no query (2 bad line(s) skipped)"


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Cc", "Zl", "Zp")),
        min_size=1,
        max_size=30,
    )
)
def test_any_rank_column_is_a_rank_or_a_refusal_naming_the_line(tmp_path: Path, rank: str) -> None:
    """Whatever a TREC file's rank column holds, the reader takes it as a rank or refuses
    the line: never a traceback (`²` and 5,000 digits were ValueErrors)."""
    try:
        rankings = _read(tmp_path, ["q-2 Q0 c3 1 1 t", f"q-1 Q0 c1 {rank} 1 t"]).rankings
    except ConfigError as exc:
        assert exc.line == 2 and exc.file == str(tmp_path / "shadow.jsonl")
    else:
        assert rank.isascii() and rank.isdigit() and len(rank) <= 9
        assert [r.chunk.id for r in rankings.lists["q-1"]] == ["c1"]

"""A candidate's aggregates and breakdowns over the fixture queries, worked out by hand.

Per query (see test_measures): evidence_recall q1 0, q2 1/2, q3 1/2; oracle 1, 1, 1/2;
first-match ranks (3), (1, 3), (2, None); prompt tokens 40, 60, 50 and q4 40.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from evaluator.chunk import Chunk
from evaluator.metrics import (
    ChunkIndex,
    IndexStats,
    MetricSettings,
    TokenCounter,
    evaluate,
    index_stats,
)
from evaluator.metrics.evaluate import CandidateResult, QueryFacets, doc_format, length_bucket
from labeler.core.errors import ConfigError
from tests.evaluator.metrics.fixtures import INDEX, Q1, Q2, Q3, Q4, RANKED, SETTINGS, TEXTS, chunk


def run() -> CandidateResult:
    return evaluate(
        [Q1, Q2, Q3, Q4], RANKED, INDEX, settings=SETTINGS, texts=TEXTS, count_tokens=len, name="c"
    )


def test_aggregates_are_means_over_defined_queries() -> None:
    agg = run().aggregates
    assert agg["evidence_recall@k"] == pytest.approx(1 / 3)  # q4 is out of the denominator
    assert agg["hit@k"] == 0.0
    assert agg["document_hit@k"] == 1.0
    assert agg["oracle_recall"] == pytest.approx(5 / 6)
    assert agg["first_match_rank"] == pytest.approx((3 + 1 + 3 + 2) / 4)  # pooled spans
    assert agg["mean_first_match_rank"] == pytest.approx((3 + 2 + 2) / 3)
    assert agg["unique_evidence@k"] == pytest.approx(2 / 3)
    assert agg["duplicate_pairs@k"] == 0.0
    assert agg["prompt_tokens@k"] == pytest.approx(190 / 4)  # every query, q4 included
    assert agg["chroma_recall"] == pytest.approx((0.2 + 0.5 + 13 / 18) / 3)
    assert agg["abstention_top1"] == pytest.approx(0.42)


def test_breakdowns_by_slice_pattern_and_document() -> None:
    b = run().breakdowns
    assert list(b) == ["slice", "boundary", "doc", "format", "length"]
    critical = b["slice"]["critical"]  # q1, q2, q4
    assert critical.queries == 3
    assert critical.metrics["evidence_recall@k"] == pytest.approx(0.25)
    assert critical.metrics["prompt_tokens@k"] == pytest.approx(140 / 3)
    assert critical.metrics["abstention_top1"] == pytest.approx(0.42)
    assert b["slice"]["tables"].metrics["evidence_recall@k"] == 0.5  # q2
    assert list(b["slice"]) == ["critical", "tables"]  # q3 has no slice
    assert b["boundary"]["other"].queries == 1  # q4 alone
    assert b["boundary"]["other"].metrics["evidence_recall@k"] is None
    assert b["boundary"]["cross-reference"].metrics["oracle_recall"] == 0.5
    assert b["doc"]["a"].queries == 3  # q1, q2, q3: q3 falls in both documents
    assert b["doc"]["b"].queries == 1
    assert b["doc"]["b"].metrics["first_match_rank"] == 2.0


def test_breakdowns_by_document_format_and_evidence_length() -> None:
    b = run().breakdowns
    # Documents `a` and `b` have no extension; q4 (abstention) has no evidence, so no group.
    assert list(b["format"]) == ["(none)"] and b["format"]["(none)"].queries == 3
    assert list(b["length"]) == ["< 50 ch"]  # every span is 8 or 10 code points
    assert (
        b["length"]["< 50 ch"].metrics["evidence_recall@k"]
        == b["format"]["(none)"].metrics["evidence_recall@k"]
    )


@pytest.mark.parametrize(
    ("doc", "fmt"),
    [("a/b.md", "md"), ("notes.TXT", "txt"), ("README", "(none)"), (".env", "(none)"),
     ("dir.v2/file", "(none)"), ("x.tar.gz", "gz")],
)  # fmt: skip
def test_a_documents_format_is_its_extension(doc: str, fmt: str) -> None:
    assert doc_format(doc) == fmt


def test_length_buckets_cut_at_50_200_and_500() -> None:
    cuts = [length_bucket(n) for n in (1, 49, 50, 199, 200, 499, 500, 10_000)]
    assert cuts == ["< 50 ch", "< 50 ch", "50–199 ch", "50–199 ch", "200–499 ch",
                    "200–499 ch", "≥ 500 ch", "≥ 500 ch"]  # fmt: skip
    facets = QueryFacets(True, False, "other", (), ("a.md",), (600, 30, 120))
    assert facets.keys("length") == ("< 50 ch", "50–199 ch", "≥ 500 ch")  # by size, not name


def test_result_serialises_without_document_text() -> None:
    result = run()
    dumped = json.dumps(result.to_json())
    assert json.loads(dumped)["per_query"]["q3"]["first_match_rank"] == [2, None]
    assert json.loads(dumped)["facets"]["q3"]["docs"] == ["a", "b"]
    assert TEXTS["a"][10:30] not in dumped and TEXTS["b"][:20] not in dumped
    assert result.value("q2", "hit@k") is False


def test_missing_ranked_list_is_an_error() -> None:
    with pytest.raises(ValueError, match="no ranked list for query q4"):
        evaluate([Q4], {}, INDEX, settings=SETTINGS, texts=TEXTS, count_tokens=len)


@dataclass(frozen=True)
class OtherSettings:
    k: int
    depth: int
    coverage_threshold: float
    duplicate_threshold: float
    embedding: str


def test_any_settings_object_with_the_four_parameters_serves() -> None:
    other = OtherSettings(2, 4, 0.8, 0.7, "minilm")
    result = evaluate([Q1], RANKED, INDEX, settings=other, texts=TEXTS, count_tokens=len)
    assert result.settings == SETTINGS


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"k": 0}, "settings.k"),
        ({"k": 5, "depth": 4}, "settings.depth"),
        ({"coverage_threshold": 0.0}, "settings.coverage_threshold"),
        ({"duplicate_threshold": 1.5}, "settings.duplicate_threshold"),
    ],
)
def test_bad_settings_name_their_key(kwargs: dict[str, float], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        MetricSettings(**kwargs)  # type: ignore[arg-type]
    assert caught.value.key == key


def test_index_finds_touching_chunks_even_when_they_nest() -> None:
    outer, inner, later = chunk("a", 0, 100), chunk("a", 10, 20), chunk("a", 30, 40)
    index = ChunkIndex.build([later, inner, outer])
    assert index.touching("a", 50, 60) == [outer]
    assert index.touching("a", 20, 30) == [outer, inner, later]  # closed: both edges touch
    assert index.touching("a", 21, 29) == [outer]
    assert index.touching("missing", 0, 10) == []


def test_token_counter_adds_the_prefix_and_caches() -> None:
    calls: list[str] = []

    def words(text: str) -> int:
        calls.append(text)
        return len(text.split())

    tokens = TokenCounter(words, {"d": "one two three four five"})
    headed = chunk("d", 0, 13, prefix="Billing > Refunds")  # "one two three" + 3 words
    assert tokens(headed) == 6
    assert tokens(headed) == 6
    assert len(calls) == 2  # text and prefix once each


def test_index_stats() -> None:
    headed = Chunk("headed", "a", 0, 20, "ab")  # its own id: C1's range with a prefix
    chunks = [*INDEX, headed]
    stats = index_stats(chunks, TEXTS, len)
    assert stats == IndexStats(
        chunk_count=8,
        indexed_chars=170 + 22,
        indexed_tokens=170 + 22,
        mean_chunk_tokens=192 / 8,
        max_chunk_tokens=30,
    )
    assert index_stats([], TEXTS, len).mean_chunk_tokens is None

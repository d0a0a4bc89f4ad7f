"""Treatments as candidate settings (§19): parsed and refused naming candidate and key,
recorded and fingerprinted, and each stage's order worked out by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evaluator.candidates import read, with_retriever
from evaluator.chunk import Chunk
from evaluator.retrieval.base import QueryInput, Ranked
from evaluator.retrieval.hybrid import HybridRetriever, ranks
from evaluator.retrieval.lexical import LexicalRetriever, Tokenizer
from evaluator.retrieval.stages import capped, mmr_order, treated
from evaluator.retrieval.treatment import MMR, Fusion, Treatment
from labeler.core.errors import ConfigError

GOOD = """
[settings]
baseline = "w10"
retriever = "lexical"

[[candidate]]
name = "w10"
splitter = "words"
size = 10

[[candidate]]
name = "treated"
splitter = "words"
size = 10
{extra}
"""


def _read(tmp_path: Path, extra: str) -> Treatment:
    path = tmp_path / "c.toml"
    path.write_text(GOOD.format(extra=extra), encoding="utf-8")
    return read(path).candidate("treated").treatment


def test_treatments_parse_and_differ_in_the_record_and_fingerprint(tmp_path: Path) -> None:
    plain = _read(tmp_path, "")
    assert plain == Treatment() and plain.record() == {}
    mmr = _read(tmp_path, "mmr = { lambda = 0.7, fetch = 30 }\nmax_per_source = 2")
    assert mmr.mmr == MMR(0.7, 30) and mmr.max_per_source == 2
    assert mmr.record() == {"mmr": {"lambda": 0.7, "fetch": 30}, "max_per_source": 2}
    lexical = _read(tmp_path, "stopwords = true\nstem = true")
    assert lexical.record() == {"stopwords": True, "stem": True}
    assert len({plain.fingerprint(), mmr.fingerprint(), lexical.fingerprint()}) == 3
    hybrid = _read(tmp_path, 'retriever = "hybrid"\nfusion = { k = 10, weights = [2, 1] }')
    assert hybrid.fusion == Fusion(10, (2.0, 1.0))
    ranked = _read(tmp_path, 'retriever = "ranked"\nranked = "logs/shadow.jsonl"')
    assert ranked.ranked == str(tmp_path / "logs" / "shadow.jsonl")  # beside the file
    rerank = _read(tmp_path, 'rerank = { url = "http://u:k@h:1/rerank?x=1", model = "m" }')
    assert rerank.record() == {"rerank": {"url": "http://h:1/rerank", "model": "m", "top": 50}}


BAD = [
    ("mmr = { lambda = 2 }", "mmr", "mmr.lambda must lie in [0, 1]"),
    ("mmr = { lambda = 0.5, diversity = 1 }", "mmr.diversity",
     "unknown key 'diversity' in mmr (known: lambda, fetch)"),
    ("mmr = 0.5", "mmr", "wrong type"),
    ("max_per_source = 0", "max_per_source", "max_per_source.max_per_source must lie in"),
    ("max_per_source = true", "max_per_source", "wrong type"),
    ("stopwords = true", "stopwords", "stopwords is for lexical or hybrid"),
    ('retriever = "bm25"', "retriever", "retriever must be one of ('chroma', 'exact', "
     "'lexical', 'hybrid', 'ranked', 'http')"),
    ('retriever = "ranked"', "ranked", "retriever 'ranked' needs ranked"),
    ('ranked = "x.jsonl"', "ranked", "ranked needs retriever 'ranked'"),
    ('retriever = "http"', "url", "retriever 'http' needs url"),
    ('retriever = "http"\nurl = "ftp://h/x"', "url", "url is not a URL"),
    ('rerank = { url = "h:1" }', "rerank.url", "rerank.url is not a URL"),
    ("rerank = { top = 5 }", "rerank.url", "rerank needs url"),
    ("fusion = { weights = [1] }", "fusion", "fusion.weights must be two numbers"),
    ("filters = 1", "filters", "unknown key 'filters' (known: name, splitter, size"),
]  # fmt: skip


@pytest.mark.parametrize(("extra", "key", "words"), BAD, ids=[b[0] for b in BAD])
def test_bad_treatments_are_refused_naming_candidate_and_key(
    tmp_path: Path, extra: str, key: str, words: str
) -> None:
    text = GOOD.format(extra=extra)
    if "stopwords" in extra:  # lexical takes stopwords: refused only for another retriever
        text = text.replace('retriever = "lexical"', 'retriever = "exact"')
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read(path)
    assert caught.value.key == key
    assert words in caught.value.message
    assert "candidate 'treated'" in caught.value.message
    assert caught.value.file == str(path)


def test_unknown_treatment_keys_list_every_known_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        _read(tmp_path, "diversify = true")
    for key in ("mmr", "max_per_source", "stopwords", "stem", "rerank", "ranked", "url"):
        assert key in caught.value.message


OVERRIDDEN = [
    ("stem = true", "chroma", "stem", "candidate 'treated': stem is for lexical or hybrid "
     "(--retriever chroma)"),
    ("stopwords = true", "exact", "stopwords", "candidate 'treated': stopwords is for lexical "
     "or hybrid (--retriever exact)"),
    ("", "ranked", "ranked", "candidate 'w10': retriever 'ranked' needs ranked "
     "(--retriever ranked)"),
    ("", "http", "url", "candidate 'w10': retriever 'http' needs url (--retriever http)"),
]  # fmt: skip


@pytest.mark.parametrize(("extra", "retriever", "key", "message"), OVERRIDDEN,
                         ids=[o[3] for o in OVERRIDDEN])  # fmt: skip
def test_a_command_line_retriever_is_held_to_each_candidate_s_treatment(
    tmp_path: Path, extra: str, retriever: str, key: str, message: str
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(GOOD.format(extra=extra), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        with_retriever(read(path), retriever)
    assert (caught.value.message, caught.value.key) == (message, key)
    assert caught.value.file == str(path)


def test_an_override_that_fits_every_candidate_or_spares_its_own_retriever_passes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(GOOD.format(extra='retriever = "lexical"\nstem = true'), encoding="utf-8")
    overridden = with_retriever(read(path), "chroma")  # 'treated' keeps its own lexical
    assert overridden.settings.retriever == "chroma"
    assert overridden.candidate("treated").retriever(overridden.settings) == "lexical"
    path.write_text(GOOD.format(extra="stem = true"), encoding="utf-8")
    assert with_retriever(read(path), "hybrid").settings.retriever == "hybrid"


def _chunk(n: int, doc: str) -> Ranked:
    return Ranked(Chunk(f"c{n}", doc, n * 10, n * 10 + 10), 1.0 - n / 10)


def test_the_cap_moves_a_document_s_extra_chunks_below_every_other_in_order() -> None:
    ranked = [_chunk(0, "a"), _chunk(1, "a"), _chunk(2, "b"), _chunk(3, "a"), _chunk(4, "c")]
    assert [r.chunk.id for r in capped(ranked, 1)] == ["c0", "c2", "c4", "c1", "c3"]
    assert [r.chunk.id for r in capped(ranked, 2)] == ["c0", "c1", "c2", "c4", "c3"]


def test_mmr_picks_the_relevant_then_the_novel() -> None:
    # d0 and d1 are near copies; d2 is less relevant but new
    relevance = np.array([0.9, 0.85, 0.6])
    similar = np.array([[1.0, 0.95, 0.1], [0.95, 1.0, 0.1], [0.1, 0.1, 1.0]])
    # second pick, λ = 0.5: d1 0.425 - 0.475 = -0.05; d2 0.3 - 0.05 = 0.25 -> d2
    assert mmr_order(relevance, similar, 0.5) == [0, 2, 1]
    assert mmr_order(relevance, similar, 1.0) == [0, 1, 2]  # plain relevance


def test_stopwords_and_stemming_change_which_words_count() -> None:
    assert Tokenizer().terms("The refunds of orders") == ["the", "refunds", "of", "orders"]
    assert Tokenizer(stopwords=True).terms("The refunds of orders") == ["refunds", "orders"]
    assert Tokenizer(stem=True).terms("refunds ordered") == ["refund", "order"]
    texts = {"a": "Refund policy", "b": "The refunds of the orders"}
    chunks = [Chunk("x", "a", 0, 13), Chunk("y", "b", 0, 25)]
    query = [QueryInput("q", "the refund")]
    # plain: "the refund" -> a has refund (1/2), b has the (1/2): tie to the earlier, a
    [plain] = LexicalRetriever(chunks, texts).search(query, 2)
    assert [(r.chunk.id, r.score) for r in plain] == [("x", 0.5), ("y", 0.5)]
    # stopwords and stem: "refund" alone, in both -> 1.0 each
    [both] = LexicalRetriever(chunks, texts, Tokenizer(True, True)).search(query, 2)
    assert [(r.chunk.id, r.score) for r in both] == [("x", 1.0), ("y", 1.0)]


def test_rrf_sums_weighted_reciprocal_ranks_and_bm25_misses_add_nothing() -> None:
    texts = {"a": "refund policy", "b": "shipping costs", "c": "refund refund window"}
    chunks = [Chunk("x", "a", 0, 13), Chunk("y", "b", 0, 14), Chunk("z", "c", 0, 20)]
    vectors = np.array([[0, 1], [1, 0], [0.6, 0.8]], dtype=np.float32)
    hybrid = HybridRetriever(chunks, texts, vectors, Fusion(1, (1.0, 1.0)), Tokenizer())
    [ranked] = hybrid.search([QueryInput("q", "refund", np.array([1, 0], np.float32))], 3)
    # dense ranks: y 1, z 2, x 3; BM25 ranks (refund): z 1 (twice), x 2; y has no term.
    # k = 1: z 1/2 + 1/3 = 0.8333; y 1/2 = 0.5; x 1/3 + 1/4 = 0.5833
    assert [(r.chunk.id, round(r.score, 4)) for r in ranked] == [
        ("z", 0.8333), ("x", 0.5833), ("y", 0.5)]  # fmt: skip
    assert ranks(np.array([0.5, 0.9, 0.5])).tolist() == [2, 1, 3]


def test_a_treatment_without_stages_leaves_the_retriever_as_it_is() -> None:
    inner = LexicalRetriever([], {})
    assert treated(inner, Treatment(stopwords=True), {}, None) is inner

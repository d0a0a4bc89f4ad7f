"""Metadata filters (§24): front matter read from Markdown, a filter resolved to documents,
every retriever ranking only those (Chroma by `where`, the same as the exact scorer), items
from outside dropped and counted, evidence outside the filter missed; hostile filters
refused naming the key."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evaluator.candidates import parse, read
from evaluator.chunk import Chunk
from evaluator.pipeline import RunOptions, run_evaluation
from evaluator.retrieval import search_http
from evaluator.retrieval.base import QueryInput, Ranked
from evaluator.retrieval.exact import ExactRetriever
from evaluator.retrieval.filters import DocFilter, Filtered, allowed_docs, parse_filter
from evaluator.retrieval.front_matter import front_matter
from evaluator.retrieval.hybrid import HybridRetriever
from evaluator.retrieval.items import ChunkLookup
from evaluator.retrieval.lexical import LexicalRetriever, Tokenizer
from evaluator.retrieval.treatment import Fusion
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError
from tests.evaluator.chroma.test_chroma_index import CANDIDATES, DOCS, queries

HEAD = """---
title: "Billing: policy"
lang: de   # German
tags: [billing, refunds]
product:
  - thermostat
  - hub
draft: True
  indented: ignored
---
# Body
"""


def test_front_matter_gives_flat_fields_and_only_for_markdown() -> None:
    assert front_matter("a.md", HEAD) == {
        "title": ("Billing: policy",), "lang": ("de",), "tags": ("billing", "refunds"),
        "product": ("thermostat", "hub"), "draft": ("true",),
    }  # fmt: skip
    assert front_matter("a.txt", HEAD) == {}
    assert front_matter("a.md", HEAD.replace("---\n# Body", "# Body")) == {}  # never closed
    assert front_matter("a.md", "# Title\n---\nlang: de\n---\n") == {}  # not at the top


TEXTS = {
    "policies/a.md": "---\nlang: de\n---\nrefund days fee",
    "policies/b.md": "---\nlang: en\n---\nrefund days",
    "help/c.md": "---\nlang: [de, fr]\n---\nrefund",
    "help/d.txt": "lang: de\nrefund days fee box",
}


@pytest.mark.parametrize(
    ("raw", "docs"),
    [
        ({"path": "policies/**"}, {"policies/a.md", "policies/b.md"}),
        ({"lang": "de"}, {"policies/a.md", "help/c.md"}),
        ({"path": "policies/**", "lang": "de"}, {"policies/a.md"}),
        ({"path": ["help/*.txt", "policies/b.md"]}, {"help/d.txt", "policies/b.md"}),
        ({"lang": ["en", "fr"]}, {"policies/b.md", "help/c.md"}),
        ({"path": "*.md"}, {"policies/a.md", "policies/b.md", "help/c.md"}),
    ],
)
def test_a_filter_lets_through_the_documents_it_names(raw: dict[str, Any], docs: set[str]) -> None:
    assert allowed_docs(parse_filter(raw, "c"), TEXTS, "c", "filter") == docs


@pytest.mark.parametrize(
    ("raw", "key", "words"),
    [
        ({"langg": "de"}, "filter.langg", "no document has the front-matter field 'langg'"),
        ({"path": "nothing/**"}, "filter", "lets no document of the corpus through"),
        ({"lang": "xx"}, "filter", "lets no document"),
    ],
)
def test_a_filter_that_finds_nothing_is_refused(raw: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        allowed_docs(parse_filter(raw, "candidate 'c'"), TEXTS, "candidate 'c'", "filter")
    assert info.value.key == key and words in info.value.message


CHUNKS = [Chunk(f"c{i}", doc, 0, len(TEXTS[doc])) for i, doc in enumerate(TEXTS)]
DE = frozenset({"policies/a.md", "help/c.md"})


def test_the_scorers_rank_only_the_filter_s_chunks_to_full_depth() -> None:
    lexical = LexicalRetriever(CHUNKS, TEXTS)
    asked = [QueryInput("q", "refund fee"), QueryInput("q", "refund fee", docs=DE)]
    [plain, only] = lexical.search(asked, 4)
    assert [r.chunk.doc for r in plain] == ["help/d.txt", "policies/a.md", "help/c.md",
                                            "policies/b.md"]  # fmt: skip
    assert [(r.chunk.doc, r.score) for r in only] == [("policies/a.md", 1.0), ("help/c.md", 0.5)]
    vectors = np.eye(4, dtype=np.float32)[[0, 1, 2, 3]]
    exact = ExactRetriever(CHUNKS, vectors)
    ask = QueryInput("q", "refund fee", np.asarray([0.1, 0.2, 0.3, 0.9], np.float32), docs=DE)
    assert [r.chunk.doc for r in exact.search([ask], 4)[0]] == ["help/c.md", "policies/a.md"]
    hybrid = HybridRetriever(CHUNKS, TEXTS, vectors, Fusion(), Tokenizer())
    fused = hybrid.search([ask], 4)[0]
    # within the filter: BM25 ranks a (refund, fee) 1st and c 2nd; dense ranks c 1st, a 2nd;
    # the tie goes to the earlier chunk (help/ before policies/)
    assert [r.chunk.doc for r in fused] == ["help/c.md", "policies/a.md"]
    assert [round(r.score, 6) for r in fused] == [round(1 / 61 + 1 / 62, 6)] * 2


class Fixed:
    """A retriever that answers what it is given, and keeps what it was asked."""

    def __init__(self, ranked: list[Ranked]) -> None:
        self.ranked, self.asked = ranked, []  # type: list[Ranked], list[QueryInput]

    def search(self, queries: Sequence[QueryInput], depth: int) -> list[list[Ranked]]:
        self.asked += queries
        return [list(self.ranked) for _ in queries]


def test_items_from_outside_the_filter_are_dropped_and_counted() -> None:
    inner = Fixed([Ranked(c, 1.0) for c in CHUNKS])
    told = Filtered(inner, DE, {"lang": ["de"]})
    [got] = told.search([QueryInput("q", "x")], 4)
    assert [r.chunk.doc for r in got] == ["policies/a.md", "help/c.md"]
    assert inner.asked[0].docs == DE and inner.asked[0].filter == ({"lang": ["de"]},)
    assert told.record() == {"filter": {"lang": ["de"]}, "filter_documents": 2,
                             "filter_dropped": 2}  # fmt: skip


def test_a_search_service_is_sent_the_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[dict[str, Any]] = []

    def post(_endpoint: Any, payload: dict[str, Any]) -> dict[str, Any]:
        sent.append(payload)
        return {"ranked": []}

    monkeypatch.setattr(search_http, "post_json", post)
    service = search_http.HttpRetriever("http://h:1/s", ChunkLookup(CHUNKS, TEXTS))
    Filtered(service, DE, {"path": ["policies/**"]}).search([QueryInput("q-1", "refund")], 5)
    own = QueryInput("q-2", "refund", docs=DE, filter=({"lang": ["de"]},))
    Filtered(service, DE, {"path": ["policies/**"]}).search([own], 5)
    assert sent == [
        {"query": "refund", "id": "q-1", "k": 5, "filter": [{"path": ["policies/**"]}]},
        {"query": "refund", "id": "q-2", "k": 5,
         "filter": [{"lang": ["de"]}, {"path": ["policies/**"]}]},
    ]  # fmt: skip


def test_chroma_where_ranks_what_the_exact_scorer_ranks_and_outside_evidence_is_missed(
    tmp_path: Path,
) -> None:
    corpus = Corpus.from_texts(DOCS)

    def run(retriever: str) -> Any:
        base: Any = CANDIDATES["settings"]
        settings: dict[str, Any] = {**base, "retriever": retriever}
        filtered = {"name": "w20-refunds", "splitter": "words", "size": 20,
                    "filter": {"path": "refunds.md"}}  # fmt: skip
        candidates = {"settings": settings,
                      "candidate": [*CANDIDATES["candidate"], filtered]}  # fmt: skip
        opts = RunOptions(chroma_path=tmp_path / "chroma", cache_path=tmp_path / "cache.db",
                          progress=False)  # fmt: skip
        return run_evaluation(parse(candidates, file="t.toml"), corpus, queries(corpus),
                              label_corpus_hash=corpus.hash, label_set_hash="sha256:t",
                              options=opts)  # fmt: skip

    chroma, exact = run("chroma"), run("exact")
    for result in (chroma, exact):
        filtered = result.runs["w20-refunds"]
        assert {r.chunk.doc for hits in filtered.ranked.values() for r in hits} == {"refunds.md"}
        assert filtered.extra["filter"] == {"path": ["refunds.md"]}
        assert filtered.extra["filter_documents"] == 1 and filtered.extra["filter_dropped"] == 0
        # q-2's evidence lies in shipping.md, outside the filter: missed (2 of 3 found)
        assert filtered.result.aggregates["evidence_recall@k"] == pytest.approx(2 / 3)
    ids = {q: [r.chunk.id for r in hits] for q, hits in chroma.runs["w20-refunds"].ranked.items()}
    assert ids == {q: [r.chunk.id for r in hits]
                   for q, hits in exact.runs["w20-refunds"].ranked.items()}  # fmt: skip


FILE = """
[settings]
baseline = "f"
retriever = "lexical"

[[candidate]]
name = "f"
splitter = "chars"
size = 100
FILTER
"""


@pytest.mark.parametrize(
    ("value", "key", "words"),
    [
        ("filter = 3", "filter", "wrong type"),
        ("filter = true", "filter", "wrong type"),
        ("filter = {}", "filter", "must be a table of path and fields"),
        ('filter = { path = "" }', "filter.path", "takes text"),
        ('filter = { path = "/etc/**" }', "filter.path", "relative"),
        ('filter = { path = "a/../b" }', "filter.path", "no '..'"),
        ('filter = { path = "**/**/**/**/**/x" }', "filter.path", "at most 4 '**'"),
        ("filter = { path = 3 }", "filter.path", "glob of 1 to 256"),
        ("filter = { lang = 1.5 }", "filter.lang", "takes text, whole numbers or true/false"),
        ("filter = { lang = [] }", "filter.lang", "1 to 100 values, not 0"),
        ("filter = { lang = { a = 1 } }", "filter.lang", "takes text"),
        ('filter = { lang = " " }', "filter.lang", "takes text"),
        ('filter = { "bad name" = "x" }', "filter.bad name", "is not a field name"),
    ],
)
def test_hostile_filters_are_refused_naming_the_key(
    tmp_path: Path, value: str, key: str, words: str
) -> None:
    path = tmp_path / "candidates.toml"
    path.write_text(FILE.replace("FILTER", value), "utf-8")
    with pytest.raises(ConfigError) as info:
        read(path)
    assert info.value.key == key and words in str(info.value)


def test_a_filter_is_recorded_in_the_treatment_and_its_fingerprint(tmp_path: Path) -> None:
    path = tmp_path / "candidates.toml"
    path.write_text(FILE.replace("FILTER", 'filter = { lang = ["de", 1, true], path = "a/*" }'))
    treatment = read(path).candidate("f").treatment
    assert treatment.filter == DocFilter(("a/*",), (("lang", ("de", "1", "true")),))
    assert treatment.record() == {"filter": {"path": ["a/*"], "lang": ["de", "1", "true"]}}


def test_the_share_located_blind_to_whitespace_is_said_in_words() -> None:
    from evaluator.runs.report import _located_note

    note = _located_note("llama", {"exact": 25, "normalised": 375, "rule": "whitespace-blind/1"})
    assert note == ["candidate 'llama': 375 of 400 ranked items given as text (94%) were "
                    "located with whitespace ignored (whitespace-blind/1)"]  # fmt: skip
    assert _located_note("x", {"exact": 3, "normalised": 0}) == []
    assert _located_note("x", "not a table") == []

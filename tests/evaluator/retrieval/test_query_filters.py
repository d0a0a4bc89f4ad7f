"""A query's own filter from its label (§24): carried by `spanlab.labelset/3` (a `/1` or
`/2` file reads as before, and a set without filters hashes as it did), applied per query
beside the candidate's, refused by the store rather than dropped, and hostile ones refused
naming the query and the key."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evaluator.candidates import parse
from evaluator.pipeline import RunOptions, run_evaluation
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError, LabelError
from labeler.core.labels.labelset import parse_query, query_json
from labeler.core.labels.labelset_json import format_of, frame
from labeler.core.labels.labelset_read import parse as parse_set
from tests.evaluator.chroma.test_chroma_index import DOCS, queries

CANDIDATES: dict[str, Any] = {
    "settings": {"baseline": "w20", "k": 2, "depth": 8, "retriever": "lexical"},
    "candidate": [
        {"name": "w20", "splitter": "words", "size": 20},
        {"name": "w20-shipping", "splitter": "words", "size": 20,
         "filter": {"path": "shipping.md"}},
    ],
}  # fmt: skip


def test_a_filter_travels_in_a_v3_label_set_and_older_sets_read_unchanged() -> None:
    corpus = Corpus.from_texts(DOCS)
    plain = queries(corpus)
    scoped = [replace(plain[0], filter=(("path", ("refunds.md",)),)), *plain[1:]]
    items = [query_json(q) for q in scoped]
    assert items[0]["filter"] == {"path": ["refunds.md"]} and "filter" not in items[1]
    assert format_of(items) == "spanlab.labelset/3"
    assert format_of([query_json(q) for q in plain]) == "spanlab.labelset/1"
    back = parse_set(frame(items, corpus), corpus)
    assert back.queries[0].filter == (("path", ("refunds.md",)),)
    older = parse_set(frame([query_json(q) for q in plain], corpus), corpus)
    assert all(q.filter == () for q in older.queries)
    with pytest.raises(LabelError) as info:  # a filter in a /2 file
        parse_query(items[0], corpus, "queries[0]", "spanlab.labelset/2")
    assert info.value.key == "queries[0].filter"
    assert "'filter' needs format 'spanlab.labelset/3'" in info.value.message


@pytest.mark.parametrize(
    ("given", "key", "words"),
    [
        ([], "queries[0].filter", "non-empty object"),
        ({"lang": 1.5}, "queries[0].filter.lang", "takes texts"),
        ({"lang": []}, "queries[0].filter.lang", "1 to 100 texts"),
        ({"bad key": "x"}, "queries[0].filter", "is not a field name"),
    ],
)
def test_hostile_query_filters_are_refused_naming_the_key(given: Any, key: str, words: str) -> None:
    corpus = Corpus.from_texts(DOCS)
    item = {**query_json(queries(corpus)[0]), "filter": given}
    with pytest.raises(LabelError) as info:
        parse_query(item, corpus, "queries[0]", "spanlab.labelset/3")
    assert info.value.key == key and words in info.value.message


def run(tmp_path: Path, own: tuple[tuple[str, tuple[str, ...]], ...]) -> Any:
    corpus = Corpus.from_texts(DOCS)
    asked = queries(corpus)
    asked[0] = replace(asked[0], filter=own)
    options = RunOptions(cache_path=tmp_path / "cache.db", progress=False)
    return run_evaluation(parse(CANDIDATES, file="t.toml"), corpus, asked,
                          label_corpus_hash=corpus.hash, label_set_hash="sha256:t",
                          options=options)  # fmt: skip


def test_a_query_s_filter_applies_with_the_candidate_s(tmp_path: Path) -> None:
    result = run(tmp_path, (("path", ("refunds.md",)),))
    plain, shipping = result.runs["w20"], result.runs["w20-shipping"]
    # q-1 may retrieve only from refunds.md; under the candidate's shipping.md filter too,
    # nothing is left: its evidence (refunds.md) is missed there
    assert {r.chunk.doc for r in plain.ranked["q-1"]} == {"refunds.md"}
    assert shipping.ranked["q-1"] == []
    assert {r.chunk.doc for r in shipping.ranked["q-2"]} == {"shipping.md"}
    assert plain.extra["filter_dropped"] == 0 and "filter" not in plain.extra
    assert shipping.extra["filter"] == {"path": ["shipping.md"]}
    # the candidate's filter leaves only q-2's evidence (shipping.md) findable: 1 of 3
    assert shipping.result.aggregates["evidence_recall@k"] == pytest.approx(1 / 3)


def test_a_query_filter_on_a_field_no_document_has_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        run(tmp_path, (("lang", ("de",)),))
    assert info.value.key == "filter.lang"
    assert "query q-1: no document has the front-matter field 'lang'" in info.value.message


def test_the_store_refuses_queries_with_filters_rather_than_drop_them() -> None:
    from labeler.core.errors import StoreError
    from labeler.core.labels.labelset_import import refuse_filters

    corpus = Corpus.from_texts(DOCS)
    scoped = replace(queries(corpus)[0], filter=(("path", ("refunds.md",)),))
    refuse_filters(queries(corpus))  # none: nothing to refuse
    with pytest.raises(StoreError) as info:
        refuse_filters([scoped])
    assert info.value.key == "filter" and "1 quer(y/ies) carry their own filter (q-1)" in str(
        info.value
    )

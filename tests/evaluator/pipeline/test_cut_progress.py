"""`plan` and `eval` say how far they are before the first chunk is embedded (issue 45
trial: on a 6 MB corpus with 100,000 labelled queries `plan` printed nothing for minutes):
the labels are checked by query, the corpus cut by document and cut once for candidates
that cut alike, and the spans planned one by one, each under its own bar."""

from __future__ import annotations

from evaluator.candidates import parse
from evaluator.pipeline.cutting import cut
from evaluator.pipeline.plan import plan_corpus
from evaluator.pipeline.sanity import check_labels
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query, Span
from tests.progress_tasks import recording

TEXTS = {
    "a.md": "Refunds take five days. Cards are credited within two days.\n",
    "b.md": "Shipping is free over 50 euros. Returns need a label.\n",
}
CANDIDATES = {
    "settings": {"baseline": "a", "retriever": "lexical"},
    "candidate": [
        {"name": "a", "splitter": "chars", "size": 20},
        {"name": "b", "splitter": "chars", "size": 20, "context": {"window": 1}},
        {"name": "c", "splitter": "chars", "size": 30},
    ],
}


def test_cutting_counts_documents_of_each_distinct_cut() -> None:
    seen: dict[str, list[int]] = {}
    task = recording(seen)

    corpus = Corpus.from_texts(TEXTS)
    cfile = parse(CANDIDATES, file="candidates.toml")
    tables, _ = cut(cfile, corpus, share=True, task=task)
    assert sorted(tables) == ["a", "b", "c"]
    assert seen == {"cutting: 2 cut(s)": [4, 4]}  # b cuts as a does: two cuts of two documents


def test_a_plan_checks_cuts_and_plans_under_bars() -> None:
    seen: dict[str, list[int]] = {}
    task = recording(seen)

    corpus = Corpus.from_texts(TEXTS)
    text = TEXTS["a.md"]
    spans = (Span.from_text(text, "a.md", 0, 23), Span.from_text(text, "a.md", 24, 59))
    queries = [Query("q-0001", "How long do refunds take?", evidence=spans)]
    check_labels(queries, corpus, corpus.hash, task)
    plan = plan_corpus(parse(CANDIDATES, file="c.toml"), corpus, queries, None, task)
    assert plan.queries == 1
    assert seen == {
        "checking the labels": [1, 1],
        "cutting: 2 cut(s)": [4, 4],
        "context units": [3, 3],  # by candidate
        "counting tokens": [2, 2],  # by document
        "planning the spans": [2, 2],
    }

"""Suggested evidence, lexical half: sentences ranked by BM25, query words marked.

Scores are worked out by hand where the numbers are small: two sentences of one length
each, a word in one of them: idf = ln(1 + (2 - 1 + 0.5)/(1 + 0.5)) = ln 2, and with equal
lengths the BM25 term part is tf·(k1 + 1)/(tf + k1) = 1, so the score is ln 2.
"""

from __future__ import annotations

import math

import bm25s
import numpy as np
import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.suggest import K1, B, SentenceIndex, marks
from labeler.core.labels import labelset
from labeler.core.resources import bundled
from labeler.core.text.sentences import sentences, terms

POLICY = (
    "# Refunds\n\n"
    "Refunds are paid back to the original card within five working days.\n"
    "Shipping is free over 50 euros. Returns need a printed label.\n"
)
GIFTS = "Gift cards never expire. A gift card cannot be refunded.\n"


@pytest.fixture
def index() -> SentenceIndex:
    return SentenceIndex(Corpus.from_texts({"policy.md": POLICY, "gifts.txt": GIFTS}))


def test_the_answer_sentence_ranks_first(index: SentenceIndex) -> None:
    best, *rest = index.suggest("How many working days until refunds reach my card?", 3)
    assert (best.doc, best.text) == ("policy.md", POLICY[11:79])
    assert POLICY[best.start : best.end] == best.text
    assert best.lexical_rank == 1 and best.dense_rank is None
    assert [s.lexical_rank for s in rest] == [2, 3] and best.score > rest[0].score


def test_every_document_is_a_candidate_in_document_order() -> None:
    corpus = Corpus.from_texts({"b.md": "Gift cards expire.", "a.md": "Gift cards never expire."})
    ranked = SentenceIndex(corpus).suggest("gift cards", 5)
    # Both hold both words; the shorter sentence wins (length normalisation).
    assert [s.doc for s in ranked] == ["b.md", "a.md"]


def test_a_score_worked_out_by_hand() -> None:
    corpus = Corpus.from_texts({"d.md": "Cats sleep all day. Dogs bark very loudly."})
    (only,) = SentenceIndex(corpus).suggest("cats", 5)
    assert (only.start, only.end) == (0, 19)
    assert only.score == pytest.approx(math.log(2))


def test_query_words_are_marked_in_each_passage(index: SentenceIndex) -> None:
    best = index.suggest("REFUNDS paid to the card", 1)[0]
    words = [POLICY[a:b] for a, b in best.marks]
    assert words == ["Refunds", "paid", "card"]  # `to` and `the` are stop words
    assert marks(GIFTS, 0, 24, {"gift", "expire"}) == ((0, 4), (17, 23))


@pytest.mark.parametrize("query", ["", "   \n\t", "what is it?", "?!"])
def test_a_query_without_searchable_words_suggests_nothing(
    index: SentenceIndex, query: str
) -> None:
    assert index.suggest(query, 5) == []


def test_documents_without_sentences_add_no_candidates() -> None:
    corpus = Corpus.from_texts({"empty.md": "", "rules.md": "---\n\n***\n", "a.md": "One fact."})
    index = SentenceIndex(corpus)
    assert [(p.doc, p.start, p.end) for p in index.passages] == [("a.md", 0, 9)]
    assert SentenceIndex(Corpus.from_texts({"empty.md": ""})).suggest("fact", 5) == []


def test_sentence_edges_leave_white_space_out() -> None:
    text = "   Indented line here.  \n\tTabbed one."
    index = SentenceIndex(Corpus.from_texts({"w.md": text}))
    assert [text[p.start : p.end] for p in index.passages] == ["Indented line here.", "Tabbed one."]


def test_nfd_queries_and_accents_fold_and_offsets_are_code_points() -> None:
    text = "\U0001f468\u200d\U0001f469\u200d\U0001f467 Send your r\u00e9sum\u00e9 today. Or not."
    index = SentenceIndex(Corpus.from_texts({"cv.md": text}))
    for query in ("re\u0301sume\u0301", "r\u00e9sum\u00e9", "RESUME"):
        (best,) = index.suggest(query, 5)
        assert best.text == text[best.start : best.end] == text[: text.index(" Or")]
        assert [text[a:b] for a, b in best.marks] == ["r\u00e9sum\u00e9"]


def test_a_letter_with_a_mark_of_its_own_is_one_marked_word() -> None:
    text = "The q\u0307uark spins."  # q + combining dot above: no precomposed form
    (best,) = SentenceIndex(Corpus.from_texts({"q.md": text})).suggest("quark", 5)
    assert [text[a:b] for a, b in best.marks] == ["q\u0307uark"]


def test_the_shared_splitter_and_words() -> None:
    assert sentences("One. Two!\nThree") == [(0, 4), (5, 9), (10, 15)]
    assert terms("Who pays the Restocking-fee?") == ["pays", "restocking", "fee"]


def test_the_scorer_is_bm25s_lucene_variant_to_the_last_bits() -> None:
    """The sentence scorer stays the library's formula (hybrid retrieval uses bm25s itself):
    every demo question ranks the demo's sentences alike, scores equal × (k1 + 1)."""
    demo = bundled("data/demo")
    corpus = Corpus.read(demo / "corpus")
    index = SentenceIndex(corpus)
    library = bm25s.BM25(k1=K1, b=B, method="lucene", dtype="float64")
    library.index([terms(index.text(i)) for i in range(len(index))], show_progress=False)
    questions = [q.text for q in labelset.read(demo / "labels.json", corpus).queries]
    assert len(questions) == 81
    for question in questions:
        ours = index.ranked(question)
        theirs = np.asarray(library.get_scores(sorted(set(terms(question))))) * (K1 + 1)
        order = sorted(np.flatnonzero(theirs).tolist(), key=lambda i: (-theirs[i], i))
        assert [i for i, _ in ours] == order, question
        assert [s for _, s in ours] == pytest.approx([theirs[i] for i in order], rel=1e-12)

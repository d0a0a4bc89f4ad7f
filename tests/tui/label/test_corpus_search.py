"""Fuzzy corpus search: windows, word weights, and no overlapping hits."""

from __future__ import annotations

import math

from labeler.core.corpus import Corpus
from labeler.tui.label.corpus_search import CorpusSearch, sentences, windows, words

TEXT = "Refunds take five days. Cards are credited.\nShipping is free. Returns need a label."


def test_sentences_and_windows() -> None:
    assert sentences(TEXT) == [(0, 23), (24, 43), (44, 61), (62, 83)]
    assert windows(TEXT) == [(0, 43), (24, 61), (44, 83), (62, 83)]


def test_words_drop_stopwords_and_punctuation() -> None:
    assert words("How long do the refunds take?") == ["long", "refunds", "take"]


def test_search_ranks_by_weighted_words_and_tolerates_typos() -> None:
    corpus = Corpus.from_texts({"a.md": TEXT, "b.md": "Nothing about money here."})
    search = CorpusSearch(corpus)
    assert len(search) == 5
    hits = search.search("refnds take", limit=3)
    # "refnds" matches "refunds" (ratio 92) and "take" matches: only window 0 holds both.
    assert [(h.doc, h.start, h.end) for h in hits] == [("a.md", 0, 43)]
    assert hits[0].score == 100.0
    assert hits[0].text == TEXT[0:43]


def test_partial_match_scores_the_share_of_word_weight() -> None:
    corpus = Corpus.from_texts({"a.md": TEXT})
    search = CorpusSearch(corpus)
    hits = search.search("shipping unicorns", limit=5)
    # "shipping" is in windows 1 and 2 (weight ln(1 + 4/2)); "unicorns" in none (ln(1 + 4/1)).
    share = 100 * math.log(3) / (math.log(3) + math.log(5))
    assert [(h.start, h.end) for h in hits] == [(24, 61)]
    assert hits[0].score == round(share, 1)

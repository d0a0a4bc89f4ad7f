"""Fuzzy corpus search: windows, word weights, and no overlapping hits."""

from __future__ import annotations

import math

from labeler.core.corpus.folder import Corpus
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


def test_accents_and_normal_forms_fold_to_the_same_word() -> None:
    corpus = Corpus.from_texts(
        {"cv.md": "Send your r\u00e9sum\u00e9 by mail. Caf\u00e9 opens at nine."}
    )
    search = CorpusSearch(corpus)
    for query in ("resume", "r\u00e9sum\u00e9", "re\u0301sume\u0301", "RÉSUMÉ"):
        assert [h.start for h in search.search(query)] == [0], query
    assert [h.start for h in search.search("cafe")] == [0]  # window 0 holds both sentences


def test_a_number_matches_only_itself_and_exact_words_rank_first() -> None:
    text = "\n\n".join(f"## Section {n}\n\nBody of part {n}." for n in (241, 242, 421, 4242))
    search = CorpusSearch(Corpus.from_texts({"big.md": text}))
    hits = search.search("section 4242")
    assert "## Section 4242" in hits[0].text and hits[0].score == 100.0
    assert all("4242" in h.text for h in hits if h.score == 100.0)  # 241, 242, 421: lower


def test_a_table_row_is_found_by_its_header_words() -> None:
    pricing = (
        "# Plans\n\n| Plan | Price | Devices a user can connect |\n|---|---|---|\n"
        "| Solo | 4 EUR | 1 |\n| Family | 9 EUR | 6 |\n"
    )
    other = "Many devices connect to the hub."
    search = CorpusSearch(Corpus.from_texts({"pricing.md": pricing, "hub.md": other}))
    best = search.search("How many devices can a Solo user connect?")[0]
    # a cell is a unit of its own (issue 45): the row's window starts at its first cell's text
    assert (best.doc, pricing[best.start : best.start + 6]) == ("pricing.md", "Solo |")


def test_a_hit_selects_its_matching_sentence_not_the_heading_before_it() -> None:
    text = "# Refund policy\n\nWe refund within five days. Shipping is free."
    (hit,) = CorpusSearch(Corpus.from_texts({"a.md": text})).search("refund days", limit=1)
    assert hit.sentence is not None
    assert text[slice(*hit.sentence)] == "We refund within five days."

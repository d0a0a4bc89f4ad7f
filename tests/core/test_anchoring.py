"""Re-anchoring proposals (design §8): each case's candidates worked out by hand.

Scores are WEIGHTS 50:20:20:2 over (quote, prefix, suffix, distance), divided by 92.
Levenshtein similarity is 1 - edits / length of the longer string.
"""

from __future__ import annotations

import pytest

from labeler.core.anchoring.candidates import (
    AnchorCandidate,
    Proposal,
    ScoreParts,
    propose,
    propose_many,
)
from labeler.core.corpus.canonical import canonicalize
from labeler.core.values import Span, SpanState


def span_of(text: str, quote: str, occurrence: int = 0) -> Span:
    """The span over the n-th occurrence of `quote` in `text`."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(quote, start + 1)
    return Span.from_text(text, "policy.md", start, start + len(quote))


View = tuple[int, int, str, str, tuple[float, ...]]


def view(candidate: AnchorCandidate) -> View:
    """A candidate with its parts and score rounded, to compare with hand-worked values."""
    p = candidate.parts
    numbers = (p.quote, p.prefix, p.suffix, p.distance, candidate.score)
    return (candidate.start, candidate.end, candidate.quote, candidate.kind, _r(*numbers))


def expect(start: int, quote: str, kind: str, q: float, p: float, s: float, d: float) -> View:
    """The view of a candidate with these parts; the score is 50:20:20:2 over 92."""
    score = (50 * q + 20 * p + 20 * s + 2 * d) / 92
    return (start, start + len(quote), quote, kind, _r(q, p, s, d, score))


def _r(*numbers: float) -> tuple[float, ...]:
    return tuple(round(n, 9) for n in numbers)


def views(proposal: Proposal) -> list[View]:
    return [view(c) for c in proposal.candidates]


def test_paragraph_inserted_before_span_gives_exact_candidate_at_shifted_offset() -> None:
    old = "Intro line.\nFees are due monthly.\n"
    new = "New paragraph here.\n\n" + old  # 21 code points inserted at 0
    span = span_of(old, "Fees are due monthly.")  # 12..33
    proposal = propose(span, old, new)
    # The diff maps old 12 to new 33: distance 1, context unchanged, so a perfect 1.0.
    assert views(proposal) == [expect(33, "Fees are due monthly.", "exact", 1, 1, 1, 1)]
    assert proposal.candidates[0].score == 1.0
    assert (proposal.orphaned, proposal.reason) == (
        False,
        "quote found once; its position or context changed",
    )


def test_without_old_text_distance_is_measured_from_the_old_offset() -> None:
    old = "Intro line.\nFees are due monthly.\n"
    new = "New paragraph here.\n\n" + old  # 55 code points
    proposal = propose(span_of(old, "Fees are due monthly."), None, new)
    # Expected start stays 12; the candidate is 21 away: distance 1 - 21/55.
    assert views(proposal) == [expect(33, "Fees are due monthly.", "exact", 1, 1, 1, 34 / 55)]


def test_reworded_sentence_gives_fuzzy_candidate_covering_the_new_sentence() -> None:
    old = "Billing.\nRefunds are issued within 30 days of purchase. Late fees apply.\n"
    new = "Billing.\nRefunds are processed within 30 days of the purchase date. Late fees apply.\n"
    proposal = propose(span_of(old, "Refunds are issued within 30 days of purchase."), old, new)
    # issued -> processed is 6 edits, "the " 4 and " date" 5: 15 edits over 58 code points.
    # A plain best alignment would stop after "purchase"; the sentence edge takes " date.".
    sentence = "Refunds are processed within 30 days of the purchase date."
    assert views(proposal) == [expect(9, sentence, "fuzzy", 43 / 58, 1, 1, 1)]
    assert proposal.reason == "quote was edited; closest matches"


def test_deleted_sentence_is_proposed_as_orphaned() -> None:
    old = "Refunds are issued within 30 days. Shipping is free for members. Contact us.\n"
    new = "Refunds are issued within 30 days. Contact us.\n"
    span = span_of(old, "Shipping is free for members.")
    assert propose(span, old, new) == Proposal(
        span, (), True, "no candidate with quote similarity ≥ 0.5; proposed as orphaned"
    )


def test_clause_repeated_in_two_places_lists_both_and_moves_neither() -> None:
    clause = "A refund is available within 30 days."  # 37 code points
    old = "1. " + clause + "\n"
    new = "1. " + clause + "\n2. " + clause + "\n"  # 82 code points
    span = span_of(old, clause)
    proposal = propose(span, old, new)
    # The second copy: prefix "2. " vs "1. " is 2/3; it is 41 code points from the old start.
    assert views(proposal) == [
        expect(3, clause, "exact", 1, 1, 1, 1),
        expect(44, clause, "exact", 1, 2 / 3, 1, 1 - 41 / 82),
    ]
    assert proposal.reason == "quote occurs 2 times; pick the right one"
    assert not proposal.orphaned
    assert proposal.span is span  # proposing changes nothing
    assert span.state_in(new) is SpanState.STALE


def test_number_changed_inside_sentence_covers_the_whole_new_sentence() -> None:
    old = "Returns.\nRefunds are issued within 30 days of purchase. Late fees apply.\n"
    new = old.replace("30", "120")
    proposal = propose(span_of(old, "Refunds are issued within 30 days of purchase."), old, new)
    # "30" -> "120" is one insertion and one substitution: 2 edits over 47 code points.
    sentence = "Refunds are issued within 120 days of purchase."
    assert views(proposal) == [expect(9, sentence, "fuzzy", 45 / 47, 1, 1, 1)]


def test_number_changed_inside_a_clause_keeps_word_edges() -> None:
    old = "Returns.\nRefunds are issued within 30 days of purchase. Late fees apply.\n"
    new = old.replace("30", "120")
    proposal = propose(span_of(old, "within 30 days of purchase"), old, new)
    clause = "within 120 days of purchase"
    assert views(proposal) == [expect(28, clause, "fuzzy", 25 / 27, 1, 1, 1)]


def test_document_removed_is_orphaned() -> None:
    old = "Fees are due monthly.\n"
    span = span_of(old, "Fees are due monthly.")
    assert propose(span, old, None) == Proposal(span, (), True, "document removed")


def test_offsets_are_code_points_after_crlf_and_a_zwj_emoji() -> None:
    raw_old = "Title\r\nFees are due monthly.\r\n"
    raw_new = "New intro \U0001f469\u200d\U0001f4bb line.\r\n\r\nTitle\r\nFees are due monthly.\r\n"
    old, new = canonicalize(raw_old), canonicalize(raw_new)
    proposal = propose(span_of(old, "Fees are due monthly."), old, new)
    # "New intro " 10 + woman-ZWJ-laptop 3 + " line." 6 + "\n\n" 2 + "Title\n" 6 = 27;
    # UTF-16 units would say 29 and the raw CRLF text 30.
    assert views(proposal) == [expect(27, "Fees are due monthly.", "exact", 1, 1, 1, 1)]
    assert new[27:48] == "Fees are due monthly."


def test_a_combining_accent_after_the_quote_is_not_an_exact_match() -> None:
    old = "Pay x soon."
    new = "Pay x\u0301 soon. Later: Pay x soon."  # x + combining acute does not compose
    proposal = propose(span_of(old, "Pay x"), old, new)
    # Only the second "Pay x", at 20, is the old text. The old prefix is empty (document
    # start) and the new one is not: 0. The old start 0 maps to 0: 20 away in 31.
    assert views(proposal) == [expect(20, "Pay x", "exact", 1, 0, 1, 11 / 31)]


def test_fuzzy_edges_never_split_a_grapheme() -> None:
    old = "The price of item x is 30.\n"
    new = "The price of item x\u0301 is 45.\n"
    proposal = propose(span_of(old, "price of item x"), old, new)
    # The word edge after "x" moves past its accent: one insertion over 16 code points;
    # suffix " is 30.\n" vs " is 45.\n" is 2 substitutions over 8.
    quote = "price of item x\u0301"
    assert views(proposal) == [expect(4, quote, "fuzzy", 15 / 16, 1, 6 / 8, 1)]


def test_context_prefers_the_duplicate_whose_surroundings_match() -> None:
    clause = "Fees are waived for members."  # 28 code points
    old = "xxxx " + clause + " yyyy"
    new = "zzzz " + clause + " wwww\nxxxx " + clause + " yyyy"  # 77 code points
    # Without an old text the expected start is the old one (5), by the first copy, yet
    # the second wins on prefix and suffix ("zzzz " vs "xxxx " is 4 edits in 5).
    proposal = propose(span_of(old, clause), None, new)
    assert views(proposal) == [
        expect(44, clause, "exact", 1, 1, 1, 1 - 39 / 77),
        expect(5, clause, "exact", 1, 1 / 5, 1 / 5, 1),
    ]


def test_limit_keeps_the_best_and_says_how_many_there_were() -> None:
    old = "Net 30 applies."
    new = "Net 30 applies. " * 7
    proposal = propose(span_of(old, "Net 30 applies."), None, new, limit=5)
    # Only the first copy shares the empty prefix; the rest rank by distance from 0.
    assert [c.start for c in proposal.candidates] == [0, 16, 32, 48, 64]
    assert proposal.reason == "quote occurs 7 times; pick the right one (top 5 of 7 shown)"


def test_a_quote_found_thousands_of_times_still_yields_the_top_five() -> None:
    new = "a b " * 2500
    proposal = propose(Span.from_text("a", "policy.md", 0, 1), None, new)
    # Only the first "a" shares the empty prefix; the rest rank by distance from 0.
    assert [c.start for c in proposal.candidates] == [0, 4, 8, 12, 16]
    assert proposal.reason == "quote occurs 2500 times; pick the right one (top 5 of 2500 shown)"


def test_short_quotes_get_exact_candidates_only() -> None:
    old = "Fee A. Fee B.\n"
    new = "Fee C. Fee D.\n"
    # "Fee C" is 4/5 like "Fee A", but a five-letter fuzzy match is noise.
    assert propose(span_of(old, "Fee A"), old, new).orphaned


def test_sentence_moved_and_edited_is_found_far_from_its_old_place() -> None:
    sentence = "Annual plans renew automatically unless cancelled in writing."
    filler = "Support answers within two business days. " * 4
    old = sentence + "\n\n" + filler + "\n"
    edited = "Annual plans renew automatically unless cancelled by email."
    new = filler + "\n\n" + edited + "\n"
    proposal = propose(span_of(old, sentence), old, new)
    (candidate,) = proposal.candidates
    start = len(filler) + 2
    assert (candidate.start, candidate.end, candidate.quote) == (start, start + 59, edited)


def test_accepting_a_candidate_uses_span_moved() -> None:
    old = "Billing.\nRefunds are issued within 30 days of purchase. Late fees apply.\n"
    new = old.replace("30", "45")
    span = span_of(old, "Refunds are issued within 30 days of purchase.")
    best = propose(span, old, new).candidates[0]
    accepted = span.moved(new, best.start, best.end)
    assert accepted.quote == "Refunds are issued within 45 days of purchase."
    assert accepted.state_in(new) is SpanState.VALID


def test_propose_many_matches_propose_for_every_item() -> None:
    old = "Intro line.\nFees are due monthly.\nLate fees apply.\n"
    new = "New paragraph.\n\n" + old.replace("Late", "Overdue")
    spans = [span_of(old, "Fees are due monthly."), span_of(old, "Late fees apply.")]
    items = [(spans[0], old, new), (spans[1], old, new), (spans[0], old, None)]
    assert propose_many(items) == [propose(s, o, n) for s, o, n in items]
    assert [p.orphaned for p in propose_many(items)] == [False, False, True]


def test_score_parts_outside_the_unit_interval_are_refused() -> None:
    with pytest.raises(ValueError, match="prefix"):
        ScoreParts(1.0, 1.5, 1.0, 1.0)


def test_score_total_is_the_50_20_20_2_weighted_mean() -> None:
    assert ScoreParts(1.0, 0.5, 0.0, 1.0).total == (50 + 10 + 0 + 2) / 92

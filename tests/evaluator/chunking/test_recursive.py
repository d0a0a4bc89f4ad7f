"""Recursive and sentences splitters: offsets worked out by hand."""

from __future__ import annotations

from evaluator.chunking import SplitterSpec, split_text

# 0-13 "Alpha beta.\n\n", 13-44 "Gamma delta epsilon. Zeta eta.\n", 44-50 "Theta."
PARAGRAPHS = "Alpha beta.\n\nGamma delta epsilon. Zeta eta.\nTheta."

# 0-9 "One two. ", 9-26 "Three four five. ", 26-31 "Six. ", 31-52 "Seven eight nine ten."
SENTENCES = "One two. Three four five. Six. Seven eight nine ten."


def spans(spec: SplitterSpec, text: str) -> list[tuple[int, int]]:
    return [(p.start, p.end) for p in split_text(spec, text)]


def test_recursive_cuts_at_the_coarsest_separator_that_fits() -> None:
    # Atoms: paragraph 0-13 (13); the second paragraph (37) splits at its line (13-44,
    # 44-50), 13-44 (31) at its sentence end (13-34, 34-44), 13-34 (21) at spaces:
    # 13-19, 19-25, 25-34. Sizes 13, 6, 6, 9, 10, 6 packed up to 20.
    assert spans(SplitterSpec("recursive", 20), PARAGRAPHS) == [(0, 19), (19, 34), (34, 50)]


def test_recursive_overlap_repeats_whole_atoms_within_overlap() -> None:
    # After 0-19 the tail atom 13-19 (6 <= 8) is repeated; after 13-25 the tail 19-25;
    # after 19-34 the tail 25-34 is 9 > 8, so no overlap.
    expected = [(0, 19), (13, 25), (19, 34), (34, 50)]
    assert spans(SplitterSpec("recursive", 20, 8), PARAGRAPHS) == expected


def test_recursive_whole_text_when_it_fits() -> None:
    assert spans(SplitterSpec("recursive", 50), PARAGRAPHS) == [(0, 50)]


def test_recursive_hard_cut_in_single_units() -> None:
    assert spans(SplitterSpec("recursive", 4), "abcdefghij") == [(0, 4), (4, 8), (8, 10)]
    assert spans(SplitterSpec("recursive", 4, 2), "abcdefghij") == [
        (0, 4),
        (2, 6),
        (4, 8),
        (6, 10),
    ]


def test_recursive_in_words() -> None:
    # Words per atom after the paragraph/line/sentence/space cuts: 2, 3, 2, 1.
    spec = SplitterSpec("recursive", 3, unit="words")
    assert spans(spec, PARAGRAPHS) == [(0, 13), (13, 34), (34, 50)]


def test_sentences_pack_whole_sentences() -> None:
    # Words per sentence: 2, 3, 1, 4. Size 4: 2 | 3+1 | 4.
    assert spans(SplitterSpec("sentences", 4, unit="words"), SENTENCES) == [
        (0, 9),
        (9, 31),
        (31, 52),
    ]


def test_sentences_overlap_counts_sentences() -> None:
    # Size 5, overlap 1 sentence: 2+3 | (3)+1 | (1)+4; the repeated sentence plus the
    # next new one must fit the size.
    assert spans(SplitterSpec("sentences", 5, 1, unit="words"), SENTENCES) == [
        (0, 26),
        (9, 31),
        (26, 52),
    ]


def test_sentences_keep_a_long_sentence_whole() -> None:
    assert spans(SplitterSpec("sentences", 10), SENTENCES) == [(0, 9), (9, 26), (26, 31), (31, 52)]


def test_sentence_end_needs_a_capital_or_non_letter_after_it() -> None:
    text = "Use e.g. this one. Next."
    # "e.g. this" is not a sentence end; "one. Next" is (cut at 19).
    assert spans(SplitterSpec("sentences", 5), text) == [(0, 19), (19, 24)]

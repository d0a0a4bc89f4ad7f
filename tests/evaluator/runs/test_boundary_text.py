"""The text boundary view's drawing (issue 13): wrapping at word boundaries, rulers under
the text they cut, context at word boundaries, coverage cells."""

from __future__ import annotations

from evaluator.chunk import Chunk
from evaluator.runs.boundary import doc_view, word_end, word_start
from evaluator.runs.boundary_text import coverage_cells, display_lines, fate_words, window
from evaluator.runs.model_queries import EvidenceRef

TEXT = "alpha beta gamma delta\nepsilon zeta eta theta iota"


def test_lines_wrap_at_spaces_and_keep_line_breaks() -> None:
    lines = [TEXT[a:b] for a, b in display_lines(TEXT, 0, len(TEXT), 12)]
    assert lines == ["alpha beta ", "gamma delta", "epsilon zeta ", "eta theta ", "iota"]
    assert [TEXT[a:b] for a, b in display_lines(TEXT, 0, len(TEXT), None)] == TEXT.split("\n")
    word = "abcdefghij"
    assert [word[a:b] for a, b in display_lines(word, 0, 10, 4)] == ["abcd", "efgh", "ij"]


def test_context_snaps_to_word_boundaries() -> None:
    assert word_start(TEXT, 2, 20) == 6  # "alpha" is not cut: the window starts at "beta"
    assert word_start(TEXT, 0, 20) == 0
    assert word_end(TEXT, 8, 6) == 6  # never before the evidence's end
    assert word_end(TEXT, 13, 2) == 10  # "gamma" is not cut: it ends after "beta"


def test_rulers_sit_under_the_text_they_cut() -> None:
    base = [Chunk("b1", "d", 0, 11), Chunk("b2", "d", 11, len(TEXT))]
    cand = [Chunk("c1", "d", 0, 17), Chunk("c2", "d", 17, len(TEXT))]
    view = doc_view("d", TEXT, [(6, 16)], base, cand, context=100)
    drawn = [line.plain.rstrip() for line in window(view, TEXT, [(6, 16)], set(), None)]
    assert drawn[0] == "alpha beta gamma delta"
    assert drawn[1] == "╫     ▔▔▔▔▔▌▔▔▔▔ ┊"
    assert drawn[2] == "epsilon zeta eta theta iota"
    assert drawn[3].endswith("╫") and set(drawn[3]) == {" ", "╫"}


def test_fates_and_coverage_in_words() -> None:
    span = EvidenceRef("d", 6, 16)
    assert fate_words("base", [Chunk("x", "d", 0, 20)], span) == "base holds it whole in 0..20"
    assert fate_words("cand", [Chunk("x", "d", 0, 11), Chunk("y", "d", 11, 30)], span) == (
        "cand cuts it at 11"
    )
    assert coverage_cells(("x", "d", 0, 11, 0.5), [span, EvidenceRef("e", 0, 4)]) == "e1 50%"

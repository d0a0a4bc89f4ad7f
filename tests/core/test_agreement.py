"""Agreement (§11): overlap F1, exact spans, abstention, and Krippendorff's αu against the
paper's worked example (Krippendorff 1995, p. 57, as DKPro Agreement's
`Krippendorff1995Test` reproduces it) at several stretches, and small hand-worked cases."""

from __future__ import annotations

import pytest

from labeler.core.agreement import agreement, compare, disagreement
from labeler.core.agreement.unitizing import segments
from labeler.core.store import QueryRow, Version
from labeler.core.values import Boundary, Span, Status

# (offset, length) per observer, categories A-D, on a 24-position continuum.
PAPER = {
    "A": [[(2, 8), (14, 6)], [(4, 4), (15, 2)]],
    "B": [[(0, 18)], [(0, 2), (2, 1), (3, 1), (4, 1), (5, 1), (6, 3), (9, 1)]],
    "C": [[(2, 6), (10, 2), (14, 4), (20, 2)], [(0, 2), (4, 4), (10, 4), (16, 2), (20, 2)]],
    "D": [[(0, 2), (2, 8), (10, 4), (14, 6), (20, 4)],
          [(0, 4), (4, 4), (8, 7), (15, 2), (17, 7)]],
}  # fmt: skip


def stretched(category: str, stretch: float) -> tuple[list[list[tuple[int, int]]], int]:
    """The example scaled as DKPro scales it: every offset and length truncated."""
    units = [
        [(int(o * stretch), int(o * stretch) + int(n * stretch)) for o, n in observer]
        for observer in PAPER[category]
    ]
    return units, int(24 * stretch)


@pytest.mark.parametrize(
    ("category", "observed"),
    [("A", 0.03125), ("B", 2.26736), ("C", 0.02777), ("D", 0.38715)],
)
def test_observed_disagreement_of_the_paper(category: str, observed: float) -> None:
    assert disagreement(*stretched(category, 1)).observed == pytest.approx(observed, abs=1e-5)


@pytest.mark.parametrize(
    ("category", "expected", "alpha"),
    [("A", 0.06990, 0.553), ("B", 1.17731, -0.926), ("C", 0.08642, 0.679), ("D", 0.41445, 0.066)],
)
def test_expected_disagreement_and_alpha_of_the_paper(
    category: str, expected: float, alpha: float
) -> None:
    """The paper's values hold for a fine continuum (DKPro's stretch 1,200,000 / 24)."""
    found = disagreement(*stretched(category, 50_000))
    assert found.expected == pytest.approx(expected, abs=0.005)
    assert found.alpha == pytest.approx(alpha, abs=0.02)


@pytest.mark.parametrize(
    ("stretch", "expected", "alpha"),
    [(0.5, 0.05494, 0.494), (5, 0.08234, 0.663), (50, 0.08600, 0.677), (500, 0.08638, 0.678),
     (5_000, 0.08642, 0.679), (50_000, 0.08642, 0.679)],
)  # fmt: skip
def test_alpha_of_category_c_at_every_stretch(
    stretch: float, expected: float, alpha: float
) -> None:
    found = disagreement(*stretched("C", stretch))
    assert found.observed == pytest.approx(0.02777, abs=1e-5)
    assert found.expected == pytest.approx(expected, abs=0.005)
    assert found.alpha == pytest.approx(alpha, abs=0.02)


def test_touching_units_stay_apart_and_overlapping_ones_merge() -> None:
    cut = segments([(0, 2), (2, 3), (5, 8), (6, 9)], 10)
    assert [(s.start, s.end, s.unit) for s in cut] == [
        (0, 2, True), (2, 3, True), (3, 5, False), (5, 9, True), (9, 10, False),
    ]  # fmt: skip


def test_a_hand_worked_shifted_unit() -> None:
    """L=4, A marks 0..2, B marks 1..3. Only the two units meet: δ² = 1 + 1 = 2, so
    Do = 2·2 / (2·1·16) = 0.125. Units 2, 2 (N=2); gaps 2, 1, 1: each unit adds
    (2·8 - 3·4 + 2)/3 = 2 and 2²·(2-2+1) = 4; De = (2/4)·12 / (2·4·7 - 4) = 6/52."""
    found = disagreement([[(0, 2)], [(1, 3)]], 4)
    assert found.observed == pytest.approx(0.125)
    assert found.expected == pytest.approx(6 / 52)
    assert found.alpha == pytest.approx(1 - 0.125 / (6 / 52))


def test_identical_units_agree_fully_and_nothing_marked_has_no_alpha() -> None:
    assert disagreement([[(2, 5)], [(2, 5)]], 10).alpha == pytest.approx(1.0)
    assert disagreement([[], []], 10).alpha is None


def test_a_unit_against_nothing() -> None:
    """A marks all of 0..10, B nothing: δ² = 10² (inside B's gap), Do = 200/200 = 1;
    De = (2/10)·10²·1 / (2·10·19 - 90) = 20/290."""
    found = disagreement([[(0, 10)], []], 10)
    assert found.observed == pytest.approx(1.0)
    assert found.expected == pytest.approx(20 / 290)


TEXT = "x" * 40


def version(
    who: str, *ranges: tuple[int, int], abstain: bool = False, doc: str = "a.md"
) -> Version:
    spans = tuple(Span.from_text(TEXT, doc, s, e) for s, e in ranges)
    return Version(who, abstain, spans)


def test_overlap_f1_exact_and_abstention() -> None:
    half = compare("q-1", version("bob", (5, 15)), version("alice", (0, 10)))
    assert (half.pair, half.f1, half.exact, half.both_chars) == (("alice", "bob"), 0.5, False, 5)
    same = compare("q-1", version("a", (0, 10)), version("b", (0, 10)))
    assert (same.f1, same.exact, same.abstain_agree) == (1.0, True, True)
    both = compare("q-1", version("a", abstain=True), version("b", abstain=True))
    assert (both.f1, both.exact, both.abstain_agree) == (1.0, True, True)
    one = compare("q-1", version("a", abstain=True), version("b", (0, 4)))
    assert (one.f1, one.exact, one.abstain_agree) == (0.0, False, False)
    elsewhere = compare("q-1", version("a", (0, 4)), version("b", (0, 4), doc="b.md"))
    assert elsewhere.f1 == 0.0


def row(qid: str, *slices: str) -> QueryRow:
    return QueryRow(qid, "?", False, Boundary.CONTROL, slices, "", Status.LABELLED, "", 0)


def test_the_report_by_pair_slice_pattern_and_document() -> None:
    versions = {
        "q-1": {"alice": version("alice", (0, 10)), "bob": version("bob", (0, 10))},
        "q-2": {"alice": version("alice", (0, 10)), "bob": version("bob", (5, 15))},
        "q-3": {"alice": version("alice", (0, 4))},  # single: not compared
    }
    rows = [row("q-1", "critical"), row("q-2"), row("q-3", "critical")]
    report = agreement(rows, versions, {"a.md": 40})
    assert report.double == 2
    assert report.overall is not None
    assert (report.overall.queries, report.overall.pairs) == (2, 2)
    assert report.overall.f1 == pytest.approx(0.75)
    assert report.overall.exact == 0.5
    assert list(report.by_pair) == ["alice+bob"]
    assert report.by_slice["critical"].f1 == 1.0 and report.by_slice["critical"].queries == 1
    assert report.by_pattern["control"].pairs == 2
    assert report.by_document["a.md"].alpha is not None
    assert [p.query_id for p in report.queries] == ["q-2", "q-1"]  # least agreement first


def test_no_double_annotated_queries_says_so() -> None:
    report = agreement([row("q-1")], {"q-1": {"alice": version("alice", (0, 4))}}, {"a.md": 40})
    assert (report.double, report.overall) == (0, None)

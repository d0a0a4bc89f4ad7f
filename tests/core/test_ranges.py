"""Range arithmetic on code points, Chroma's way: closed intersections, sums against unions.

The first three follow chunking_evaluation's reference helpers; `covered` and `shared`
count character sets (span agreement, §11), worked out by hand on small lists.
"""

from __future__ import annotations

from labeler.core.text.ranges import covered, difference, intersect, shared, total, union


def test_closed_intersection_of_touching_ranges_is_empty() -> None:
    assert intersect((20, 40), (40, 50)) == (40, 40)
    assert intersect((20, 39), (40, 50)) is None
    assert intersect((0, 20), (10, 18)) == (10, 18)


def test_union_merges_overlapping_and_touching_ranges() -> None:
    assert union([(30, 50), (0, 10), (10, 20), (40, 60)]) == [(0, 20), (30, 60)]
    assert total([(0, 10), (5, 15)]) == 20  # a sum: overlap counts twice


def test_difference_cuts_the_target_out() -> None:
    assert difference([(10, 20)], (12, 15)) == [(10, 12), (15, 20)]
    assert difference([(10, 20)], (5, 15)) == [(15, 20)]
    assert difference([(10, 20)], (10, 20)) == []
    assert difference([(10, 20)], (20, 20)) == [(10, 20)]  # touching removes nothing


def test_covered_counts_overlap_once_where_total_counts_it_twice() -> None:
    # 0..10 and 5..15 share 5..10: the union 0..15 is 15, the sum 20.
    assert covered([(0, 10), (5, 15)]) == 15
    assert total([(0, 10), (5, 15)]) == 20
    assert covered([(30, 40), (0, 10), (10, 12)]) == 22  # 0..12 and 30..40
    assert covered([]) == 0


def test_shared_counts_code_points_both_lists_cover() -> None:
    # a = 0..10 ∪ 20..30, b = 5..25: both cover 5..10 and 20..25.
    assert shared([(0, 10), (20, 30)], [(5, 25)]) == 10
    assert shared([(5, 25)], [(0, 10), (20, 30)]) == 10
    # Overlap inside one list is counted once: a's union is 0..15, b covers 10..20.
    assert shared([(0, 10), (5, 15)], [(10, 20)]) == 5


def test_shared_is_zero_for_touching_and_disjoint_lists() -> None:
    assert shared([(0, 10)], [(10, 20)]) == 0  # closed intersection (10, 10) is empty
    assert shared([(0, 10)], [(30, 40)]) == 0
    assert shared([], [(0, 10)]) == 0


def test_shared_of_a_list_with_itself_is_what_it_covers() -> None:
    ranges = [(3, 8), (6, 12), (20, 21)]  # union 3..12 and 20..21
    assert shared(ranges, ranges) == covered(ranges) == 10

"""The least overlap, worked out for all overlaps in array operations, equals the loop it
replaced: overlap by overlap from size - 1 down, `windows_near`'s windows, stop at the first
overlap none of which holds the range (Hypothesis, units in characters and in words)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.chunking.units import ListedUnits, Units, units_for
from evaluator.chunking.windows import windows_near
from evaluator.plan import holds
from evaluator.plan.holds import _least_overlap


def looped(
    size: int, units: Units, text_len: int, start: int, end: int, threshold: float
) -> int | None:
    """The plan's former answer, window by window."""
    lo, hi = max(0, units.index(start) - 1), units.index(end)
    least = None
    for overlap in range(size - 1, -1, -1):
        near = windows_near(units, text_len, size, overlap, lo, hi)
        if not any(holds.holds(start, end, p.start, p.end, threshold) for p in near):
            break
        least = overlap
    return least


TEXTS = st.lists(st.sampled_from(["ab", "c", " ", "  ", "\n", "déf", "中"]), max_size=60).map(
    "".join
)
THRESHOLDS = st.sampled_from([1.0, 0.8, 0.5, 0.01])


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.integers(1, 40), st.data(), THRESHOLDS, st.booleans())
def test_equal_to_the_window_by_window_loop(
    text: str, size: int, data: st.DataObject, threshold: float, words: bool
) -> None:
    units = units_for("words", text, None) if words else Units(len(text))
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    _least_overlap.cache_clear()
    assert _least_overlap(size, units, len(text), start, end, threshold) == looped(
        size, units, len(text), start, end, threshold
    )


def test_a_worked_case_in_words() -> None:
    # Words start at 0, 3, 6, 9, 12; the range [4, 8) ("b c") needs words 1 and 2 in one
    # window of 2 words: windows start every 2 - o words, at word 1 only with step 1.
    units = ListedUnits([0, 3, 6, 9, 12])
    assert _least_overlap(2, units, 14, 4, 8, 1.0) == 1
    assert looped(2, units, 14, 4, 8, 1.0) == 1
    assert _least_overlap(2, units, 14, 0, 14, 1.0) is None  # longer than any window

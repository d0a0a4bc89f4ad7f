"""Cluster boundaries: combining marks, ZWJ sequences, flags, CRLF, and the text's ends."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labeler.core.graphemes import ceil, floor, widen

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
"""man ZWJ woman ZWJ girl: five code points, one cluster."""


@pytest.mark.parametrize(
    ("text", "start", "end", "widened"),
    [
        ("(q\u0307) x", 0, 2, (0, 3)),  # q + combining dot above stays whole
        ("Cafe\u0301!", 3, 4, (3, 5)),
        (f"a{FAMILY}b", 2, 3, (1, 6)),
        ("\U0001f1eb\U0001f1f7 ok", 1, 1, (0, 2)),  # a flag is two regional indicators
        ("a\r\nb", 2, 2, (1, 3)),
        ("plain", 1, 3, (1, 3)),
        ("", 0, 0, (0, 0)),
    ],
)
def test_widen_keeps_whole_clusters(
    text: str, start: int, end: int, widened: tuple[int, int]
) -> None:
    assert widen(text, start, end) == widened


def test_floor_and_ceil_at_the_ends() -> None:
    assert (floor("ab", 0), ceil("ab", 2), floor("ab", 5), ceil("ab", -1)) == (0, 2, 2, 0)


@given(st.text(max_size=30), st.integers(0, 30), st.integers(0, 30))
def test_widen_only_grows_and_is_idempotent(text: str, a: int, b: int) -> None:
    lo, hi = sorted((min(a, len(text)), min(b, len(text))))
    start, end = widen(text, lo, hi)
    assert 0 <= start <= lo <= hi <= end <= len(text)
    assert widen(text, start, end) == (start, end)

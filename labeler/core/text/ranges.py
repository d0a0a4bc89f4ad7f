"""Character-range arithmetic on code points exactly as Chroma's chunking_evaluation does it.

Its reference code is the arbiter of the research metrics (§7), so these mirror
`chunking_evaluation/evaluation_framework/base_evaluation.py` (sum_of_ranges,
union_ranges, intersect_two_ranges, difference): intersections are closed (touching ranges
intersect in an empty range), ranges are otherwise (start, end) with end exclusive.
It sits in the core, below the metrics, because span agreement (§11) measures the same
character sets: `covered` and `shared` count them as sets, each code point once.
"""

from __future__ import annotations

from collections.abc import Iterable

Range = tuple[int, int]


def total(ranges: Iterable[Range]) -> int:
    """Σ (end - start): a sum, so overlapping ranges count twice (`sum_of_ranges`)."""
    return sum(end - start for start, end in ranges)


def union(ranges: Iterable[Range]) -> list[Range]:
    """Merge ranges that overlap or touch (`union_ranges`)."""
    merged: list[Range] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            last_start, last_end = merged[-1]
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged


def intersect(a: Range, b: Range) -> Range | None:
    """The closed intersection: `(x, x)` when a and b only touch (`intersect_two_ranges`)."""
    start, end = max(a[0], b[0]), min(a[1], b[1])
    return (start, end) if start <= end else None


def difference(ranges: Iterable[Range], target: Range) -> list[Range]:
    """Each range with `target` cut out of it (`difference`)."""
    cut_start, cut_end = target
    result: list[Range] = []
    for start, end in ranges:
        if end < cut_start or start > cut_end:
            result.append((start, end))
            continue
        if start < cut_start:
            result.append((start, cut_start))
        if end > cut_end:
            result.append((cut_end, end))
    return result


def covered(ranges: Iterable[Range]) -> int:
    """|∪ ranges|: code points at least one range covers, each counted once."""
    return total(union(ranges))


def shared(a: Iterable[Range], b: Iterable[Range]) -> int:
    """|∪a ∩ ∪b|: code points both lists cover, each counted once (touching shares none)."""
    left, right = union(a), union(b)
    i = j = count = 0
    while i < len(left) and j < len(right):
        met = intersect(left[i], right[j])
        count += 0 if met is None else met[1] - met[0]
        if left[i][1] < right[j][1]:
            i += 1
        else:
            j += 1
    return count


def trimmed(text: str, start: int, end: int) -> Range:
    """`text[start:end]` without the whitespace at either edge (empty when it is all
    whitespace): an added span and a suggested sentence are cut the same way."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end

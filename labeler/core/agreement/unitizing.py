"""Krippendorff's unitizing alpha, αu (Krippendorff 1995, "On the reliability of unitizing
contiguous data", Sociological Methodology 25: 47-76), for one category at a time.

Each observer cuts a continuum [0, L) into units of the category and the gaps between
them. Observed disagreement sums, over every pair of observers and every pair of their
segments that share a position, the squared distance δ² of the paper: for two units the
squared differences of their beginnings and of their ends; for a unit lying inside the
other observer's gap its squared length; otherwise 0. Expected disagreement is the mean
δ² over every way the same units and gaps could have been placed:

    Do = 2 / (m (m-1) L²) · Σ_{i<j} Σ_{g∈i, h∈j} δ²(g, h)
    De = (2/L) Σ_u [ (N-1)(2l³ - 3l² + l)/3 + l² Σ_{gaps k, l_k ≥ l} (l_k - l + 1) ]
         / (mL (mL - 1) - Σ_u l (l - 1))
    αu = 1 - Do / De

with m observers, N units (of all observers) of lengths l, and every observer's gaps k
(Krippendorff 1995, the D_o and D_e of the paper; the same sums, term for term, as
DKPro Agreement's `KrippendorffAlphaUnitizingAgreement.calculateObserved/Expected-
CategoryDisagreement`). The tests pin DKPro's own output on the paper's example (p. 57) at
every stretch its `Krippendorff1995Test` uses: Do, De to 4 decimals, αu to 3. The paper's
printed De (0.08642 for C) is a little off, as DKPro's test notes; it asserts it only within
0.005, and both implementations give 0.0905 (αu 0.693) on a fine continuum.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from labeler.core.text.ranges import Range


@dataclass(frozen=True)
class Segment:
    """A stretch of one observer's continuum: a unit of the category, or a gap."""

    start: int
    """First position."""
    end: int
    """One past the last position."""
    unit: bool
    """True for a unit, False for a gap."""

    @property
    def length(self) -> int:
        return self.end - self.start


def merged(units: Iterable[Range]) -> list[Range]:
    """Units of one observer with overlapping ones joined; touching units stay apart (two
    sentences marked one after the other are two units, as in the paper's example)."""
    out: list[Range] = []
    for start, end in sorted(units):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def segments(units: Iterable[Range], length: int) -> list[Segment]:
    """An observer's continuum [0, length) as units (overlaps merged) and the gaps between."""
    out: list[Segment] = []
    pos = 0
    for start, end in merged((max(0, s), min(length, e)) for s, e in units if s < e):
        if start > pos:
            out.append(Segment(pos, start, False))
        out.append(Segment(start, end, True))
        pos = end
    if pos < length:
        out.append(Segment(pos, length, False))
    return out


def distance(g: Segment, h: Segment) -> int:
    """δ²(g, h) of the paper, for two segments (of two observers) that share a position."""
    if g.unit and h.unit:
        return (g.start - h.start) ** 2 + (g.end - h.end) ** 2
    if g.unit and h.start <= g.start and g.end <= h.end:
        return g.length**2
    if h.unit and g.start <= h.start and h.end <= g.end:
        return h.length**2
    return 0


def pair_sum(a: Sequence[Segment], b: Sequence[Segment]) -> int:
    """Σ δ² over every pair of segments of a and b that share a position (one sweep)."""
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        total += distance(a[i], b[j])
        end_a, end_b = a[i].end, b[j].end
        i += end_a <= end_b
        j += end_b <= end_a
    return total


@dataclass(frozen=True)
class Disagreement:
    """Observed and expected disagreement of one category on one continuum."""

    observed: float
    """Do."""
    expected: float
    """De (0 when no observer marked a unit: nothing to agree on)."""

    @property
    def alpha(self) -> float | None:
        """αu = 1 - Do/De; None when De is 0."""
        if self.expected == 0:
            return None
        return 1.0 - self.observed / self.expected


def disagreement(observers: Sequence[Iterable[Range]], length: int) -> Disagreement:
    """Do and De of one category: `observers[i]` is observer i's units on [0, length)."""
    m = len(observers)
    if m < 2 or length <= 0:
        raise ValueError("unitizing alpha needs two or more observers and a non-empty continuum")
    cuts = [segments(units, length) for units in observers]
    observed = sum(pair_sum(cuts[i], cuts[j]) for i in range(m) for j in range(i + 1, m))
    do = 2.0 * observed / (m * (m - 1) * length * length)
    return Disagreement(do, _expected(cuts, length))


def _expected(cuts: Sequence[Sequence[Segment]], length: int) -> float:
    units = [s.length for cut in cuts for s in cut if s.unit]
    if not units:
        return 0.0
    gaps = sorted((s.length for cut in cuts for s in cut if not s.unit), reverse=True)
    n, m = len(units), len(cuts)
    top = 0
    for u in units:
        fits = sum(g - u + 1 for g in gaps if g >= u)
        top += (n - 1) * (2 * u**3 - 3 * u**2 + u) // 3 + u * u * fits
    bottom = m * length * (m * length - 1) - sum(u * (u - 1) for u in units)
    return 2.0 * top / length / bottom


def pooled(parts: Iterable[Disagreement]) -> Disagreement:
    """Over several categories or continua: the mean Do and the mean De (as DKPro does)."""
    found = [p for p in parts if p.expected > 0]
    if not found:
        return Disagreement(0.0, 0.0)
    n = len(found)
    return Disagreement(sum(p.observed for p in found) / n, sum(p.expected for p in found) / n)

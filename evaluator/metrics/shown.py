"""How a figure is shown: its label, its column header, its number format, which way is up.

Every view (report.md, the terminal summary, triage, gates) prints a measure through its
`Shown`, so a label or a format is written once, beside the measure it describes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Better(StrEnum):
    """Which way a figure improves."""

    HIGHER = "higher"
    LOWER = "lower"
    NEITHER = "neither"
    """A size, not a score (chunk count): neither way is better in itself."""


@dataclass(frozen=True)
class Shown:
    label: str
    """Its name in a table with room (triage's metrics table)."""
    short: str
    """Its column header where room is short (report.md, the terminal summary)."""
    format: str
    """How a value is printed (`{:.3f}`)."""
    better: Better
    """Which way is an improvement."""
    least: float | None = 0.0
    """The smallest value it can take (None: a score, any finite number): a run.json that
    holds less is refused, naming the key."""
    most: float | None = None
    """The largest (1 for a share; None: no bound but finite)."""

    def unbased(self, *, short: bool = False) -> str:
        """Its name over cells `at k · at budget`: `recall`, not `recall@k`, the basis
        left to the cells (§17: no at-budget figure under an `@k` label)."""
        return (self.short if short else self.label).replace("@k", "")

    def text(self, value: float | None) -> str:
        """The value as printed; `–` when undefined."""
        return "–" if value is None else self.format.format(value)

    def delta_text(self, delta: float | None) -> str:
        """A difference, signed: `+0.012`, `-0.063`; `–` when undefined."""
        if delta is None:
            return "–"
        return "+" + self.text(delta) if delta >= 0 else self.text(delta)

    def improved(self, delta: float | None) -> bool | None:
        """True when `delta` is an improvement, False when worse, None for no change or a size."""
        if delta is None or self.better is Better.NEITHER or abs(delta) < 1e-12:
            return None
        return (delta > 0) == (self.better is Better.HIGHER)
